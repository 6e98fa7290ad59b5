import { testScheduler } from '../support/marbles.js';
import { terminateSession, type SessionSignaller } from '../../src/operators/terminate-session.js';

type Sig = 'SIGTERM' | 'SIGCONT' | 'SIGKILL';

/** A fake session whose members leave at given virtual times, or when a given signal arrives. */
function fakeSession(
  now: () => number,
  procs: Array<{ pid: number; leavesAt?: number; diesOn?: Sig[]; respawnsAs?: number }>,
) {
  const alive = new Map(procs.map((p) => [p.pid, p]));
  const log: string[] = [];
  const signaller: SessionSignaller = {
    members: () => {
      for (const [pid, p] of alive) if (p.leavesAt !== undefined && now() >= p.leavesAt) alive.delete(pid);
      return [...alive.keys()];
    },
    signal: (pid, sig) => {
      log.push(`${now()}:${sig}:${pid}`);
      const p = alive.get(pid);
      if (p?.diesOn?.includes(sig)) {
        alive.delete(pid);
        if (p.respawnsAs !== undefined) alive.set(p.respawnsAs, { pid: p.respawnsAs, diesOn: ['SIGKILL'] });
      }
    },
  };
  return { signaller, log };
}

describe('terminateSession', () => {
  it('sends TERM and CONT to each member and stops once they leave within the grace period: no KILL', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { signaller, log } = fakeSession(() => scheduler.now(), [
        { pid: 10, leavesAt: 30 },
        { pid: 11, leavesAt: 45 },
      ]);
      expectObservable(terminateSession(signaller, { graceMs: 100, pollMs: 10, scheduler })).toBe('50ms (r|)', {
        r: { termed: 2, escalated: false },
      });
      scheduler.flush();
      expect(log).toEqual(['0:SIGTERM:10', '0:SIGCONT:10', '0:SIGTERM:11', '0:SIGCONT:11']);
    });
  });

  it('escalates to KILL when the grace period passes with a member left (one that ignores TERM)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { signaller, log } = fakeSession(() => scheduler.now(), [
        { pid: 20, diesOn: ['SIGKILL'] },
        { pid: 21, diesOn: ['SIGTERM'] },
      ]);
      expectObservable(terminateSession(signaller, { graceMs: 100, pollMs: 10, scheduler })).toBe('110ms (r|)', {
        r: { termed: 2, escalated: true },
      });
      scheduler.flush();
      expect(log.filter((l) => l.includes('KILL'))).toEqual(['100:SIGKILL:20']);
    });
  });

  it('keeps sweeping with KILL until the session is empty (a forker making new members)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { signaller, log } = fakeSession(() => scheduler.now(), [{ pid: 30, diesOn: ['SIGKILL'], respawnsAs: 31 }]);
      expectObservable(terminateSession(signaller, { graceMs: 50, pollMs: 10, scheduler })).toBe('70ms (r|)', {
        r: { termed: 1, escalated: true },
      });
      scheduler.flush();
      expect(log.filter((l) => l.includes('KILL'))).toEqual(['50:SIGKILL:30', '60:SIGKILL:31']);
    });
  });

  it('completes at once and signals nothing when the session is already empty', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { signaller, log } = fakeSession(() => scheduler.now(), []);
      expectObservable(terminateSession(signaller, { graceMs: 50, pollMs: 10, scheduler })).toBe('(r|)', {
        r: { termed: 0, escalated: false },
      });
      scheduler.flush();
      expect(log).toEqual([]);
    });
  });

  it('stops polling when unsubscribed (no timer left behind)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { signaller, log } = fakeSession(() => scheduler.now(), [{ pid: 40, diesOn: ['SIGKILL'] }]);
      expectObservable(terminateSession(signaller, { graceMs: 100, pollMs: 10, scheduler }), '^ 29ms !').toBe('');
      scheduler.flush();
      expect(log).toEqual(['0:SIGTERM:40', '0:SIGCONT:40']);
    });
  });
});
