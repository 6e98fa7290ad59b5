import { MAX_SESSIONS, MAX_SESSIONS_PER_OWNER } from '../../src/limits.js';
import type { ToolOutcome } from '../../src/testkit/fake-host.js';
import { waitFor } from '../../src/testkit/waits.js';
import { HOSTS, Session, fails, ok, useHost } from './fixtures/suite.js';

jest.setTimeout(120_000);

/** Permission prompts open per session right now. */
function pendingBySession(prompts: ReadonlyArray<{ sessionID: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of prompts) counts.set(p.sessionID, (counts.get(p.sessionID) ?? 0) + 1);
  return counts;
}

describe.each(HOSTS)('registry limits through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  /**
   * Fires `perSession` spawns from each session at once with every prompt held open, so every admitted spawn
   * holds its reservation while the others race; then answers them all.
   */
  async function raceSpawns(sessions: Session[], perSession: number) {
    const host = ctx.host;
    host.permissions.decide = () => 'hang';
    let maxOpen = 0;
    let maxOpenPerSession = 0;
    const settled: Array<ToolOutcome | undefined> = [];
    const calls = sessions.flatMap((s) =>
      Array.from({ length: perSession }, (_, i) => {
        const index = settled.push(undefined) - 1;
        return s
          .call('pty_spawn', { command: 'cat', description: `${s.id} #${i}` })
          .then((outcome) => (settled[index] = outcome));
      }),
    );
    // Every call has either been refused or is waiting at its prompt: the admissions are all decided.
    await waitFor(() => {
      const open = host.permissions.pending;
      maxOpen = Math.max(maxOpen, open.length);
      maxOpenPerSession = Math.max(maxOpenPerSession, ...pendingBySession(open).values(), 0);
      return settled.filter((o) => o !== undefined).length + open.length === calls.length;
    }, 'every spawn to be admitted or refused');
    const refusedEarly = settled.filter((o): o is ToolOutcome => o !== undefined);
    const openPrompts = host.permissions.pending.length;
    const perSessionOpen = pendingBySession(host.permissions.pending);
    host.permissions.release('allow');
    const outcomes = await Promise.all(calls);
    return { outcomes, refusedEarly, openPrompts, perSessionOpen, maxOpen, maxOpenPerSession };
  }

  it('admits at most 5 PTYs per owner when 30 spawns from 3 sessions race', async () => {
    const sessions = ['ses_a', 'ses_b', 'ses_c'].map((id) => new Session(ctx.host, id));
    const run = await raceSpawns(sessions, 10);
    expect(run.maxOpenPerSession).toBeLessThanOrEqual(MAX_SESSIONS_PER_OWNER);
    expect(run.maxOpen).toBeLessThanOrEqual(MAX_SESSIONS);
    expect([...run.perSessionOpen.values()]).toEqual([5, 5, 5]);
    for (const refused of run.refusedEarly) {
      const failed = fails(refused);
      expect(failed.code).toBe('limit');
      expect(failed.message).toMatch(new RegExp(`${MAX_SESSIONS_PER_OWNER} PTYs .*\\(the limit per session\\)`));
    }
    expect(run.refusedEarly).toHaveLength(15);
    expect(run.outcomes.filter((o) => o.ok)).toHaveLength(15);
    for (const s of sessions) {
      expect((await s.list()).map((p) => p.status)).toEqual(Array(MAX_SESSIONS_PER_OWNER).fill('running'));
    }
  });

  it('admits at most 16 PTYs in all when 4 sessions race for 20', async () => {
    const sessions = ['ses_1', 'ses_2', 'ses_3', 'ses_4'].map((id) => new Session(ctx.host, id));
    const run = await raceSpawns(sessions, MAX_SESSIONS_PER_OWNER);
    expect(run.maxOpen).toBeLessThanOrEqual(MAX_SESSIONS);
    expect(run.maxOpenPerSession).toBeLessThanOrEqual(MAX_SESSIONS_PER_OWNER);
    expect(run.openPrompts).toBe(MAX_SESSIONS);
    expect(run.refusedEarly).toHaveLength(20 - MAX_SESSIONS);
    for (const refused of run.refusedEarly) {
      const failed = fails(refused);
      expect(failed.code).toBe('limit');
      expect(failed.message).toMatch(new RegExp(`${MAX_SESSIONS} PTYs .*across all sessions \\(the limit\\)`));
    }
    let listed = 0;
    for (const s of sessions) {
      const ptys = await s.list();
      expect(ptys.length).toBeLessThanOrEqual(MAX_SESSIONS_PER_OWNER);
      listed += ptys.length;
    }
    expect(listed).toBe(MAX_SESSIONS);
  });

  it('evicts an ended PTY to admit a new one at the owner limit, and refuses when all still run', async () => {
    const s = new Session(ctx.host, 'ses_evict');
    const running = [];
    for (let i = 0; i < MAX_SESSIONS_PER_OWNER - 1; i++)
      running.push((await s.spawn({ command: 'cat', description: `cat ${i}` })).id);
    const short = await s.spawn({ command: 'true', description: 'ends at once' });
    await s.untilStatus(short.id, ['exited']);

    // A spawn that fails (a missing command, a refused prompt) leaves the ended PTY and its output where they were.
    const missing = fails(await s.call('pty_spawn', { command: 'no-such-command-xyz', description: 'fails' }));
    expect(missing.code).toBe('spawn_failed');
    ctx.host.permissions.decide = () => 'reject';
    fails(await s.call('pty_spawn', { command: 'cat', description: 'refused' }));
    ctx.host.permissions.decide = () => 'allow';
    expect((await s.read(short.id)).status).toBe('exited');

    const fresh = await s.spawn({ command: 'cat', description: 'takes the ended one’s place' });
    const ids = (await s.list()).map((p) => p.id);
    expect(ids).toEqual([...running, fresh.id]);
    expect(fails(await s.call('pty_read', { id: short.id })).code).toBe('not_found');

    const refused = fails(await s.call('pty_spawn', { command: 'cat', description: 'one too many' }));
    expect(refused.code).toBe('limit');
    expect(refused.message).toMatch(/End one with pty_kill \(cleanup: true removes it\), then spawn again\./);
    expect((await s.list()).map((p) => p.id)).toEqual(ids);
    // After a kill (without cleanup), the killed one is evicted for the next spawn.
    ok(await s.call('pty_kill', { id: running[0] }));
    const next = await s.spawn({ command: 'cat', description: 'after a kill' });
    expect((await s.list()).map((p) => p.id)).toEqual([...running.slice(1), fresh.id, next.id]);
  });
});
