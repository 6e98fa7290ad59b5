/**
 * Issue 10, "Nothing outlives its PTY": one real-process test per finding, through the real plugin (V1 fixture)
 * or the real process stream. Each of these failed on the code before the fix (see the commit that adds them).
 */
import { Subject } from 'rxjs';
import { PtyError } from '../../src/errors.js';
import { createV1Plugin, type V1Client } from '../../src/hosts/opencode-v1.js';
import { allProcesses, readStat } from '../../src/engine/procfs.js';
import {
  MAX_ARG_BYTES,
  MAX_TOTAL_ARG_BYTES,
  SCRIPT_EXIT_BACKSTOP_MS,
  TERMINATE_GRACE_MS,
  TERMINATE_TIMEOUT_MS,
} from '../../src/limits.js';
import { ptyProcess$ } from '../../src/streams/pty-process.js';
import { Reaper } from '../../src/engine/reaper.js';
import { setupV2 } from '../../src/hosts/opencode-v2.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';
import { Session, ok, useHost } from '../hosts/fixtures/suite.js';
import { v1Fixture, type V1HostFixture } from '../../src/testkit/fake-v1-host.js';
import { runToExit } from '../support/pty-probe.js';
import { pidsWithMarker } from '../../src/testkit/processes.js';
import { KillResult, ReadResult } from '../../src/protocol/tool-results.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(60_000);

/**
 * Live members of a terminal session, read straight from /proc while the session's leader group is stopped: a
 * plain scan misses a worm that forks and exits faster than /proc is read; a stopped one cannot move.
 */
function membersOf(sid: number): number[] {
  // kill(-0) would stop this test's own process group.
  if (!Number.isSafeInteger(sid) || sid <= 1) throw new Error(`no terminal session id: ${sid}`);
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-sid, signal);
    } catch {
      // No process (not even a zombie) is left in the group.
    }
  };
  group('SIGSTOP');
  try {
    return allProcesses()
      .filter((p) => p.sessionId === sid && p.state !== 'Z')
      .map((p) => p.pid);
  } finally {
    group('SIGCONT');
  }
}
/**
 * A fork-and-exit worm (TERM and HUP ignored) whose every generation appends a byte to `heartbeat`, the ground truth
 * of whether it still runs; with `ownGroup`, each child moves into a process group of its own. It ends by itself
 * after 30 s: should a sweep miss it, it must not outlive the test run by long.
 */
function pythonWorm(heartbeat: string, periodMs: number, ownGroup: boolean): string {
  return [
    'import os, signal, time',
    'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
    'signal.signal(signal.SIGHUP, signal.SIG_IGN)',
    `beat = os.open(${JSON.stringify(heartbeat)}, os.O_WRONLY | os.O_CREAT | os.O_APPEND)`,
    'print("ready", flush=True)',
    'deadline = time.time() + 30',
    'while time.time() < deadline:',
    `    time.sleep(${periodMs / 1000})`,
    '    if os.fork() > 0:',
    '        os._exit(0)',
    ...(ownGroup ? ['    os.setpgrp()'] : []),
    '    os.write(beat, b".")',
  ].join('\n');
}

/** Allowed past the grace period for a worm's sweep: the target is 200 ms; CPU contention on a shared runner adds to it. */
const WORM_SLACK_MS = 1_000;
const uniqueMarker = () => `${process.pid}${Math.floor(Math.random() * 1e6)}`;

describe('issue 10 findings, with real processes', () => {
  const ctx = useHost(v1Fixture);
  const leftovers: number[] = [];
  afterEach(() => {
    // A failing test must not leave its processes to the next one.
    for (const sid of leftovers.splice(0)) for (const pid of membersOf(sid)) process.kill(pid, 'SIGKILL');
  });
  const track = (sid: number) => {
    leftovers.push(sid);
    return sid;
  };
  /** The terminal's Unix session id: the program's pid, which every spawn that returned has reported. */
  const sidOf = (pty: { readonly id: string; readonly commandPid: number | null }): number => {
    if (pty.commandPid === null) throw new Error(`${pty.id} has no commandPid`);
    return pty.commandPid;
  };

  it('1. pty_kill returns only when the terminal session is empty (TERM-ignoring job, nohup grandchild)', async () => {
    const s = new Session(ctx.host, 'ses_kill');
    const marker = uniqueMarker();
    const script = `set -m; sleep 1000.${marker} & sleep 1001.${marker} & sh -c 'trap "" TERM; sleep 1002.${marker}' & nohup sh -c 'sleep 1003.${marker}' >/dev/null 2>&1 & echo ready; wait`;
    const pty = await s.spawn({ command: 'bash', args: ['-c', script], description: 'jobs' });
    const sid = track(sidOf(pty));
    await s.untilOutput(pty.id, 'ready');
    await waitFor(() => pidsWithMarker(marker, 'sleep').length === 4 || undefined, 'all four sleeps');
    const killed = ok(await s.call('pty_kill', { id: pty.id }), KillResult);
    // At the moment pty_kill answers, nothing of the session is left.
    expect(membersOf(sid)).toEqual([]);
    expect(pidsWithMarker(marker)).toEqual([]);
    expect(killed.status).toBe('killed');
    expect(killed.survivors).toBeNull();
    expect(killed.lingering).toBeNull();
  });

  it('2. a program that exits leaving members: lingering everywhere the model looks, and each ending action ends them', async () => {
    const s = new Session(ctx.host, 'ses_linger');
    const marker = uniqueMarker();
    const pty = await s.spawn({
      command: 'bash',
      args: ['-c', `nohup sleep 300.${marker} >/dev/null 2>&1 & sleep 0.3; echo started`],
      description: 'backgrounds a server',
      notifyOnExit: true,
    });
    const sid = track(sidOf(pty));
    const listed = await s.untilStatus(pty.id, ['lingering', 'exited', 'killed']);
    expect(listed.status).toBe('lingering');
    expect(listed.exitCode).toBe(0);
    expect(listed.lingering?.count).toBe(1);
    expect(listed.lingering?.members[0]?.command).toBe(`sleep 300.${marker}`);
    const read = ok(await s.call('pty_read', { id: pty.id }), ReadResult);
    expect(read).toMatchObject({ status: 'lingering', exitCode: 0, lingering: { count: 1 } });
    const note = await waitFor(
      () => ctx.host.notifications.find((n) => n.envelope.id === pty.id),
      'the exit notification',
    );
    expect(note.envelope).toMatchObject({
      status: 'lingering',
      exitCode: 0,
      lingering: { count: 1, members: [{ command: `sleep 300.${marker}` }] },
    });
    // Still accountable: it is not evicted, and it stays so.
    await sleep(700);
    expect((await s.list()).find((p) => p.id === pty.id)?.status).toBe('lingering');
    expect(membersOf(sid)).toHaveLength(1);
    const killed = ok(await s.call('pty_kill', { id: pty.id }), KillResult);
    expect(membersOf(sid)).toEqual([]);
    expect(killed).toMatchObject({ status: 'killed', exitCode: 0, lingering: null, survivors: null });
    expect(ctx.host.permissionLog.some((p) => p.patterns.some((x: string) => x.startsWith('pty_kill ')))).toBe(true);
  });

  it('2b. members that end by themselves end the PTY as exited', async () => {
    const s = new Session(ctx.host, 'ses_linger_short');
    // nohup: without job control a background job shares the leader's group, which the kernel HUPs when the leader exits.
    const pty = await s.spawn({
      command: 'bash',
      args: ['-c', 'nohup sleep 1 >/dev/null 2>&1 & sleep 0.2; echo bye'],
      description: 'short background',
    });
    expect((await s.untilStatus(pty.id, ['lingering', 'exited'])).status).toBe('lingering');
    const ended = await s.untilStatus(pty.id, ['exited'], 10_000);
    expect(ended.lingering).toBeNull();
  });

  it('2c. session deletion and plugin close end lingering members', async () => {
    const doomed = new Session(ctx.host, 'ses_doomed_linger');
    const closing = new Session(ctx.host, 'ses_close_linger');
    const m1 = uniqueMarker();
    const m2 = uniqueMarker();
    const a = await doomed.spawn({
      command: 'bash',
      args: ['-c', `nohup sleep 300.${m1} >/dev/null 2>&1 & sleep 0.2; echo x`],
      description: 'a',
    });
    const b = await closing.spawn({
      command: 'bash',
      args: ['-c', `nohup sleep 301.${m2} >/dev/null 2>&1 & sleep 0.2; echo y`],
      description: 'b',
    });
    track(sidOf(a));
    track(sidOf(b));
    await doomed.untilStatus(a.id, ['lingering']);
    await closing.untilStatus(b.id, ['lingering']);
    await ctx.host.deleteSession('ses_doomed_linger');
    await waitFor(
      () => membersOf(sidOf(a)).length === 0 || undefined,
      'the deleted session’s lingering member to end',
      5_000,
    );
    expect(membersOf(sidOf(b))).toHaveLength(1);
    await ctx.host.close();
    expect(membersOf(sidOf(b))).toEqual([]);
    expect(pidsWithMarker(m1).concat(pidsWithMarker(m2))).toEqual([]);
  });

  it.each([1, 3, 20])(
    '3. a fork-and-exit worm at %i ms a generation (TERM/HUP ignored) ends with 0 left shortly after the grace period (target: grace + 200 ms)',
    async (periodMs) => {
      const s = new Session(ctx.host, `ses_worm_${periodMs}`);
      // Each generation appends a byte to a heartbeat file: the ground truth of whether the worm still runs.
      const heartbeat = join(ctx.host.projectDir, `worm-${periodMs}.beat`);
      const worm = pythonWorm(heartbeat, periodMs, false);
      const pty = await s.spawn({ command: 'python3', args: ['-c', worm], description: `worm ${periodMs}` });
      const sid = track(sidOf(pty));
      const beats = () => (existsSync(heartbeat) ? statSync(heartbeat).size : 0);
      await waitFor(() => beats() > 5 || undefined, 'the worm to breed');
      // Its first generation was the program: the PTY has exited, and the worm lingers in it.
      const listed = await s.untilStatus(pty.id, ['lingering', 'exited']);
      expect(listed.status).toBe('lingering');
      expect(membersOf(sid).length).toBeGreaterThan(0);
      const t0 = Date.now();
      const killed = ok(await s.call('pty_kill', { id: pty.id }), KillResult);
      const took = Date.now() - t0;
      expect(membersOf(sid)).toEqual([]);
      expect(killed.survivors).toBeNull();
      // Nothing resurfaces: no member was left running to fork again.
      const after = beats();
      await sleep(300);
      expect(beats()).toBe(after);
      expect(membersOf(sid)).toEqual([]);
      process.stdout.write(
        `worm ${periodMs} ms: pty_kill returned with 0 left after ${took} ms (grace ${TERMINATE_GRACE_MS} ms)\n`,
      );
      // The freeze KILLs on its first tick and confirms on the next (measured ~60 ms after the grace on an idle
      // machine); the slack covers a host with a load average of ~19 on 2 cores, where one /proc scan took 25-90 ms.
      expect(took).toBeLessThan(TERMINATE_GRACE_MS + WORM_SLACK_MS);
    },
  );

  it.each([1, 3])(
    '3c. a worm at %i ms a generation that puts each child in a process group of its own is ended too, and nothing resurfaces',
    async (periodMs) => {
      const s = new Session(ctx.host, `ses_group_worm_${periodMs}`);
      // No group the sweep stops holds the newest generation, which a listing of /proc (several ms) rarely shows.
      const heartbeat = join(ctx.host.projectDir, `group-worm-${periodMs}.beat`);
      const worm = pythonWorm(heartbeat, periodMs, true);
      const pty = await s.spawn({ command: 'python3', args: ['-c', worm], description: `group worm ${periodMs}` });
      const sid = track(sidOf(pty));
      const beats = () => (existsSync(heartbeat) ? statSync(heartbeat).size : 0);
      await waitFor(() => beats() > 5 || undefined, 'the worm to breed');
      const t0 = Date.now();
      const killed = ok(await s.call('pty_kill', { id: pty.id }), KillResult);
      const took = Date.now() - t0;
      expect(killed.survivors).toBeNull();
      // The heartbeat is the ground truth: a worm that slipped the sweep goes on beating.
      const after = beats();
      await sleep(1_000);
      expect(beats()).toBe(after);
      expect(membersOf(sid)).toEqual([]);
      process.stdout.write(`group worm ${periodMs} ms: pty_kill returned with 0 left after ${took} ms\n`);
      expect(took).toBeLessThan(TERMINATE_TIMEOUT_MS);
    },
  );

  // util-linux script learns of its child's death from one SIGCHLD read off a signalfd. A SIGCHLD still pending
  // when the child dies is not queued twice, so when script has not yet read the one for the child's stop (or
  // continue), it never hears of the death and sleeps forever beside its zombie child. In CI a loaded machine kept
  // script off the CPU between the sweep's STOP and KILL of the leader; holding script stopped reproduces that in
  // most runs (5 of 7 without the fix; the rest exited by themselves), and the second case in every run.
  const stopped = (pid: number) => waitFor(() => readStat(pid)?.state === 'T' || undefined, `${pid} to stop`);
  it.each([
    {
      case: 'a TERM-ignoring leader, stopped and KILLed while script is held off the CPU',
      command: 'trap "" TERM HUP; echo ready; while :; do sleep 1; done',
      before: async (scriptPid: number, leaderPid: number) => {
        // script stopped first: the leader's stop must stay unread, as on a machine that keeps script waiting.
        process.kill(scriptPid, 'SIGSTOP');
        await stopped(scriptPid);
        process.kill(leaderPid, 'SIGSTOP');
        await stopped(leaderPid);
      },
      exit: [137, 'SIGKILL'],
      endsBy: TERMINATE_GRACE_MS + SCRIPT_EXIT_BACKSTOP_MS,
    },
    {
      // script stops itself when its child stops (util-linux's job-control callback) and waits for a SIGCONT.
      case: 'a leader that stopped itself, continued and TERMed',
      command: 'echo ready; sleep 0.5; kill -STOP $$; sleep 1000',
      before: async (scriptPid: number) => {
        await stopped(scriptPid);
      },
      exit: [143, 'SIGTERM'],
      endsBy: SCRIPT_EXIT_BACKSTOP_MS,
    },
  ])(
    '3b. $case: the program’s real exit status, no wait for the backstop',
    async ({ command, before, exit, endsBy }) => {
      const s = new Session(ctx.host, `ses_lost_sigchld_${exit[0]}`);
      const pty = await s.spawn({ command: 'sh', args: ['-c', command], description: 'lost SIGCHLD' });
      track(sidOf(pty));
      await s.untilOutput(pty.id, 'ready');
      await before(pty.pid, sidOf(pty));
      const t0 = Date.now();
      const killed = ok(await s.call('pty_kill', { id: pty.id }), KillResult);
      const took = Date.now() - t0;
      expect(membersOf(sidOf(pty))).toEqual([]);
      expect([killed.status, killed.exitCode, killed.signal]).toEqual(['killed', ...exit]);
      // Past the backstop, script would have been KILLed for not exiting: the program's status lost, a second gone.
      expect(took).toBeLessThan(endsBy);
    },
  );
});

describe('4. every input within the documented bounds works', () => {
  it(`two arguments of ${MAX_ARG_BYTES} quote characters each reach the program unchanged`, async () => {
    const quotes = "'".repeat(MAX_ARG_BYTES);
    const { text, exit } = await runToExit({
      command: 'sh',
      args: ['-c', 'printf "%s\\n" "${#1}" "${#2}"; [ "$1" = "$2" ] && echo same', 'sh', quotes, quotes],
    });
    expect(exit.exitCode).toBe(0);
    expect(text).toBe(`${MAX_ARG_BYTES}\n${MAX_ARG_BYTES}\nsame\n`);
  });

  it(`${MAX_TOTAL_ARG_BYTES} aggregate bytes of quotes work too`, async () => {
    const n = MAX_TOTAL_ARG_BYTES / MAX_ARG_BYTES;
    const quotes = "'".repeat(MAX_ARG_BYTES);
    const { text, exit } = await runToExit({
      command: 'sh',
      args: ['-c', 'n=0; for a; do n=$((n + ${#a})); done; echo "$# $n"', 'sh', ...Array(n).fill(quotes)],
    });
    expect(exit.exitCode).toBe(0);
    expect(text).toBe(`${n} ${MAX_TOTAL_ARG_BYTES}\n`);
  });

  it('a spawn that fails synchronously becomes a PtyError that names the reason', async () => {
    let caught: unknown;
    await new Promise<void>((resolve) =>
      ptyProcess$(
        { command: 'true', args: [], workdir: '/tmp', rows: 10, cols: 10 },
        // A NUL in cwd makes Node's spawn throw before any process exists.
        {
          reaper: new Reaper(),
          bind: () => ({ fd: -1, cwdPath: '/tmp\0bad', realPath: '/tmp', close: () => undefined }),
        },
      ).subscribe({
        error: (err) => {
          caught = err;
          resolve();
        },
        complete: resolve,
      }),
    );
    expect(caught).toBeInstanceOf(PtyError);
    expect((caught as PtyError).code).toBe('spawn_failed');
    expect((caught as PtyError).message).toMatch(/^the terminal could not be started: /);
  });
});

describe('5. an exit notification is never dropped silently', () => {
  const ctx = useHost(v1Fixture);

  it('is delivered without agent and model when the session’s messages cannot be read, and that is logged', async () => {
    const host = ctx.host as V1HostFixture;
    host.messagesFail = true;
    const s = new Session(host, 'ses_no_messages');
    const pty = await s.spawn({ command: 'sh', args: ['-c', 'echo done'], description: 'quick', notifyOnExit: true });
    const n = await waitFor(() => host.notifications.find((x) => x.envelope.id === pty.id), 'the exit notification');
    expect(n.envelope).toMatchObject({ type: 'pty.exit', status: 'exited', exitCode: 0 });
    await waitFor(
      () => host.logs.some((l) => l.level === 'warn' && l.message.includes('without the agent and model')) || undefined,
      'the warning',
    );
    expect(host.logs.some((l) => l.message.includes('not delivered'))).toBe(false);
  });
});

describe('6. bad host input to a hook is logged and ignored', () => {
  const logs: string[] = [];
  const client: V1Client = {
    session: {
      promptAsync: async () => ({ data: {} }),
      messages: async () => ({ data: [] }),
    },
    app: {
      log: async ({ body }) => {
        logs.push(`${body.level}:${body.message}`);
        return true;
      },
    },
  };

  it('V1: event(undefined), event({}) and an event whose getter throws resolve; a later deletion still acts', async () => {
    const hooks = await createV1Plugin({ client, directory: '/tmp' });
    try {
      const hostile = {
        get event(): unknown {
          throw new Error('revoked');
        },
      };
      await expect(hooks.event(undefined as never)).resolves.toBeUndefined();
      await expect(hooks.event({} as never)).resolves.toBeUndefined();
      await expect(hooks.event(hostile as never)).resolves.toBeUndefined();
      await expect(
        hooks.event({
          event: {
            get type(): string {
              throw new Error('odd');
            },
          },
        }),
      ).resolves.toBeUndefined();
      expect(logs.filter((l) => l.startsWith('warn:ignored a host event'))).toHaveLength(2);
      await hooks.event({ event: { type: 'session.deleted', properties: { sessionID: 'ses_gone' } } });
      const refused = hooks.tool.pty_list!.execute({}, { sessionID: 'ses_gone', ask: async () => undefined });
      await expect(refused).rejects.toThrow(/deleted/);
    } finally {
      await hooks.dispose();
    }
  });

  it('V2: an event whose fields throw is logged and skipped; the stream goes on', async () => {
    const events = new Subject<unknown>();
    const queue: unknown[] = [
      {
        get type(): string {
          throw new Error('odd');
        },
      },
      { type: 'session.deleted', data: { sessionID: 'ses_v2_gone' } },
    ];
    const warned: string[] = [];
    let added: Array<{ name: string; execute: (input: unknown, tctx: unknown) => Promise<unknown> }> = [];
    const cleanup = await setupV2(
      {
        location: { directory: '/tmp' },
        event: {
          subscribe: () => ({
            [Symbol.asyncIterator]: () => ({
              next: async () =>
                queue.length > 0 ? { done: false, value: queue.shift() } : new Promise<never>(() => undefined),
              return: async () => ({ done: true, value: undefined }),
            }),
          }),
        },
        session: { synthetic: async () => undefined },
        permission: { assert: async () => undefined },
        tool: {
          transform: async (fn: (editor: { add(t: never): void }) => void) =>
            fn({
              add: (t) => {
                added = [...added, t];
              },
            }),
        },
      } as never,
      { log: { info: () => undefined, warn: (m: string) => void warned.push(m), error: () => undefined } },
    );
    try {
      void events;
      await waitFor(() => warned.includes('ignored a host event that could not be read') || undefined, 'the warning');
      const list = added.find((t) => t.name === 'pty_list')!;
      await waitFor(async () => {
        try {
          await list.execute(
            {},
            { sessionID: 'ses_v2_gone', messageID: 'm', id: 'c', agent: 'a', signal: new AbortController().signal },
          );
          return undefined;
        } catch (err) {
          return /deleted/.test(String(err)) || undefined;
        }
      }, 'the deletion after the odd event to act');
    } finally {
      await cleanup();
    }
  });
});
