import { orphanGuard } from '../../src/engine/orphan-guard.js';
import { KillResult } from '../../src/protocol/tool-results.js';
import { readlinkSync } from 'node:fs';
import { OUTPUT_CHANNEL_REFILL_MS } from '../../src/limits.js';
import { descriptorsOpenedSince, isRunning, openDescriptors, socketsHeld } from '../../src/testkit/processes.js';
import { SPARE_PAIRED_MS, sleep, waitFor } from '../../src/testkit/waits.js';
import { HOSTS, Session, fails, ok, useHost } from './fixtures/suite.js';
import { liveChildren } from '../../src/testkit/processes.js';

jest.setTimeout(90_000);

describe.each(HOSTS)('lifecycle through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it.each(['sessionID', 'info'] as const)(
    'deleting the owner while its permission prompt is open rejects the spawn; nothing starts (event shape %s)',
    async (shape) => {
      const s = new Session(ctx.host, 'ses_doomed');
      const children = liveChildren();
      ctx.host.permissions.decide = () => 'hang';
      const spawning = s.call('pty_spawn', { command: 'sleep', args: ['30'], description: 'never' });
      await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
      await ctx.host.deleteSession('ses_doomed', shape);
      const failed = fails(await spawning);
      expect(failed.code).toBe('owner_deleted');
      // The user answers the stale prompt later: still nothing starts.
      ctx.host.permissions.release('allow');
      await sleep(100);
      expect(liveChildren()).toEqual(children);
      expect(fails(await s.call('pty_list', {})).code).toBe('owner_deleted');
      expect(fails(await s.call('pty_spawn', { command: 'cat', description: 'late' })).code).toBe('owner_deleted');
      // Other sessions are untouched.
      ctx.host.permissions.decide = () => 'allow';
      const other = new Session(ctx.host, 'ses_alive');
      expect((await other.spawn({ command: 'cat', description: 'fine' })).status).toBe('running');
    },
  );

  it('deleting the owner while its spawn is in flight leaves nothing running', async () => {
    const s = new Session(ctx.host, 'ses_racing');
    ctx.host.permissions.decide = () => 'hang';
    const spawning = s.call('pty_spawn', { command: 'sleep', args: ['30'], description: 'in flight' });
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    ctx.host.permissions.release('allow');
    // Past the prompt, into the workdir recheck and the process start: delete now.
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.host.deleteSession('ses_racing');
    const outcome = await spawning;
    if (!outcome.ok) expect(outcome.code).toBe('owner_deleted');
    await waitFor(() => liveChildren().length === 0 || undefined, 'the started process (if any) to be ended');
    expect(fails(await s.call('pty_list', {})).code).toBe('owner_deleted');
  });

  it('deleting the owner while its PTYs wait for their turn to start: those waiting never start', async () => {
    const s = new Session(ctx.host, 'ses_queued');
    const before = liveChildren();
    ctx.host.permissions.decide = () => 'hang';
    const spawning = [0, 1, 2, 3, 4].map((i) =>
      s.call('pty_spawn', { command: 'sleep', args: ['30'], description: `queued ${i}` }),
    );
    await waitFor(() => ctx.host.permissions.pending.length === 5 || undefined, 'the five prompts');
    // All five are allowed at once and reach their start in this turn: each connects its output socket (a turn),
    // then the first forks and the others wait in the start queue for turns of their own. This turn's immediate runs
    // before the queue's first one: at most one has started when the owner is deleted.
    ctx.host.permissions.release('allow');
    await new Promise((resolve) => setImmediate(resolve));
    const started = liveChildren().filter((pid) => !before.includes(pid));
    await ctx.host.deleteSession('ses_queued');
    expect(started.length).toBeLessThanOrEqual(1);
    const outcomes = await Promise.all(spawning);
    const deleted = outcomes.filter((o) => !o.ok && fails(o).code === 'owner_deleted');
    expect(deleted.length).toBeGreaterThanOrEqual(5 - started.length);
    await waitFor(() => liveChildren().length === before.length || undefined, 'the one started to be ended');
    expect(liveChildren()).toEqual(before);
  });

  it('deleting the owner ends its PTYs only', async () => {
    const doomed = new Session(ctx.host, 'ses_gone');
    const kept = new Session(ctx.host, 'ses_kept');
    const a = await doomed.spawn({ command: 'cat', description: 'a' });
    const b = await doomed.spawn({ command: 'sleep', args: ['30'], description: 'b' });
    const c = await kept.spawn({ command: 'cat', description: 'c' });
    await ctx.host.deleteSession('ses_gone');
    await waitFor(() => !isRunning(a.pid) && !isRunning(b.pid), 'the deleted session’s processes to end');
    expect(isRunning(c.pid)).toBe(true);
    expect((await kept.list()).map((p) => [p.id, p.status])).toEqual([[c.id, 'running']]);
    await kept.write(c.id, 'still here\\n');
    await kept.untilOutput(c.id, 'still here');
  });

  it('closing while a spawn waits at its prompt settles it and leaves nothing', async () => {
    const s = new Session(ctx.host, 'ses_close');
    const running = await s.spawn({ command: 'cat', description: 'running at close' });
    ctx.host.permissions.decide = () => 'hang';
    const spawning = s.call('pty_spawn', { command: 'sleep', args: ['30'], description: 'waiting at close' });
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    await ctx.host.close();
    expect(fails(await spawning).code).toBe('closing');
    expect(isRunning(running.pid)).toBe(false);
    expect(liveChildren()).toEqual([]);
    // With no PTY left, the orphan guard's pipe is closed and it exits by itself.
    await waitFor(() => orphanGuard.pids.size === 0 || undefined, 'the orphan guard to exit');
    expect(fails(await s.call('pty_list', {})).code).toBe('closing');
  });

  it('a spawn starts on the output socket paired after the spawn before it; close releases the one kept', async () => {
    const heldBefore = openDescriptors();
    const s = new Session(ctx.host, 'ses_spare');
    const first = await s.spawn({ command: 'echo', args: ['first'], description: 'pairs its own socket' });
    await s.untilOutput(first.id, 'first');
    await sleep(OUTPUT_CHANNEL_REFILL_MS + SPARE_PAIRED_MS);
    const heldSockets = socketsHeld();
    const second = await s.spawn({ command: 'cat', description: 'takes the spare' });
    // script writes to the socket this process already held before the spawn was asked for.
    expect(heldSockets).toContain(readlinkSync(`/proc/${second.pid}/fd/1`));
    await sleep(OUTPUT_CHANNEL_REFILL_MS + SPARE_PAIRED_MS);
    await ctx.host.close();
    // Only what was open before the test may be (the host's setup may close some of its own meanwhile).
    await waitFor(
      () => descriptorsOpenedSince(heldBefore).length === 0 || undefined,
      'every descriptor closed, the spare’s too',
      5_000,
    );
  });

  it('closing right after a prompt is answered settles the spawn and leaves nothing', async () => {
    const s = new Session(ctx.host, 'ses_close2');
    ctx.host.permissions.decide = () => 'hang';
    const spawning = s.call('pty_spawn', { command: 'sleep', args: ['30'], description: 'starting at close' });
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    ctx.host.permissions.release('allow');
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.host.close();
    const outcome = await spawning;
    if (!outcome.ok) expect(outcome.code).toBe('closing');
    expect(liveChildren()).toEqual([]);
  });

  it('the host cancelling a tool call at its prompt starts nothing and frees the slot', async () => {
    const s = new Session(ctx.host, 'ses_cancel');
    const children = liveChildren();
    ctx.host.permissions.decide = () => 'hang';
    const cancel = new AbortController();
    const spawning = s.call(
      'pty_spawn',
      { command: 'sleep', args: ['30'], description: 'cancelled' },
      { signal: cancel.signal },
    );
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    cancel.abort(new Error('the user pressed Esc'));
    expect(fails(await spawning).message).toBe('the user pressed Esc');
    ctx.host.permissions.release('allow');
    await sleep(100);
    expect(liveChildren()).toEqual(children);
    expect(await s.list()).toEqual([]);
    ctx.host.permissions.decide = () => 'allow';
    for (let i = 0; i < 5; i++) await s.spawn({ command: 'cat', description: `slot ${i}` });
  });

  it('a kill racing the natural exit ends consistently, without an error', async () => {
    const s = new Session(ctx.host, 'ses_race');
    const seen = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const { id } = await s.spawn({ command: 'sleep', args: ['0.2'], description: `race ${round}` });
      // Around the moment sleep exits by itself; which one wins varies, the outcome must be consistent.
      await sleep(150 + 20 * round);
      const killed = ok(await s.call('pty_kill', { id }), KillResult);
      expect(['exited', 'killed']).toContain(killed.status);
      seen.add(killed.status);
      const listed = (await s.list()).find((p) => p.id === id);
      expect(listed).toMatchObject({ status: killed.status, exitCode: killed.exitCode, endedAt: killed.endedAt });
      if (killed.status === 'exited') expect(killed.exitCode).toBe(0);
      ok(await s.call('pty_kill', { id, cleanup: true }));
    }
    expect(seen.size).toBeGreaterThan(0);
  });

  it('pty_kill lets a TERM handler finish its clean shutdown: one TERM, the commands its cleanup starts left to run', async () => {
    const s = new Session(ctx.host, 'ses_graceful');
    const cleanup = 'cleanup() { echo CLEANUP-START; sleep 0.5 && echo CLEANUP-SLEEP-OK; echo CLEANUP-END; exit 0; }';
    const { id } = await s.spawn({
      command: 'bash',
      args: ['-c', `${cleanup}; trap cleanup TERM; echo READY; while :; do sleep 0.05; done`],
      wait: { pattern: 'READY' },
    });
    const killed = await s.kill(id);
    // A TERM at every scan restarted the trap over and over and cut its sleep short, until the KILL (exit 137).
    expect(killed).toMatchObject({ exitCode: 0, survivors: null });
    const lines = (await s.text(id)).split('\n');
    const count = (line: string) => lines.filter((l) => l === line).length;
    expect([count('CLEANUP-START'), count('CLEANUP-SLEEP-OK'), count('CLEANUP-END')]).toEqual([1, 1, 1]);
  });

  it('ends a PTY at timeoutSeconds with status timeout', async () => {
    const s = new Session(ctx.host, 'ses_timeout');
    const { id, timeoutSeconds } = await s.spawn({
      command: 'sleep',
      args: ['30'],
      description: 'too slow',
      timeoutSeconds: 1,
    });
    expect(timeoutSeconds).toBe(1);
    const ended = await s.untilStatus(id, ['timeout', 'exited', 'killed']);
    expect(ended).toMatchObject({ status: 'timeout', timedOut: true, timeoutSeconds: 1 });
    expect(ended.endedAt).toEqual(expect.any(String));
    expect((await s.read(id)).status).toBe('timeout');
  });
});
