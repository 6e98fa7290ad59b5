import { lastValueFrom } from 'rxjs';
import { SeenGroups } from '../../src/operators/seen-groups.js';
import { testScheduler } from '../support/marbles.js';
import {
  sweepSession,
  type ScannedMember,
  type SessionSweeper,
  type SweepSignal,
} from '../../src/operators/sweep-session.js';

interface FakeProc {
  pid: number;
  pgrp: number;
  state: 'S' | 'T';
  /** Signals that end it (KILL always does). */
  diesOn?: SweepSignal[];
  /** A fork-and-exit worm: while running, it is a new pid at every look, so a plain scan never sees it. */
  worm?: boolean;
}

/** A fake terminal session in virtual time, with group signals, stop/continue and scans that miss running worms. */
function fakeSession(now: () => number, procs: FakeProc[]) {
  const alive = new Map(procs.map((p) => [p.pid, { ...p }]));
  const log: string[] = [];
  /** Each group signal with the members the sweep said it saw in that group. */
  const witnesses: Array<{ at: number; sig: SweepSignal; pgid: number; seen: number[] }> = [];
  /** Processes of another session: never in a scan, but a group signal to their group id reaches them. */
  const strangers = new Map<number, FakeProc>();
  let nextPid = 1_000;
  let resumed = 0;
  const deliver = (p: FakeProc, sig: SweepSignal) => {
    if (sig === 'SIGKILL' || p.diesOn?.includes(sig)) alive.delete(p.pid);
    else if (sig === 'SIGSTOP') p.state = 'T';
    else if (sig === 'SIGCONT') p.state = 'S';
  };
  const sweeper: SessionSweeper = {
    scan: () => {
      // A running worm has moved on by the time /proc is read: the scan sees nothing of it.
      for (const p of [...alive.values()]) {
        if (p.worm && p.state === 'S') {
          alive.delete(p.pid);
          const child = { ...p, pid: nextPid++ };
          alive.set(child.pid, child);
        }
      }
      return [...alive.values()]
        .filter((p) => !(p.worm && p.state === 'S'))
        .map(({ pid, pgrp, state }): ScannedMember => ({ pid, pgrp, state }));
    },
    signal: (pid, sig) => {
      log.push(`${now()}:${sig}:${pid}`);
      const p = alive.get(pid);
      if (p) deliver(p, sig);
    },
    signalGroup: (pgid, sig, seen) => {
      // As the real one (signalSessionGroup): a group id that is now another session's process is refused.
      if (strangers.has(pgid) && !alive.has(pgid)) return false;
      log.push(`${now()}:${sig}:-${pgid}`);
      witnesses.push({ at: now(), sig, pgid, seen: seen.map((m) => m.pid) });
      for (const p of [...alive.values()]) if (p.pgrp === pgid) deliver(p, sig);
      for (const p of [...strangers.values()]) if (p.pgrp === pgid) deliver(p, sig);
      return true;
    },
    resumeOutsiders: () => void resumed++,
  };
  return { sweeper, log, alive, strangers, witnesses, resumed: () => resumed };
}

const options = { graceMs: 100, pollMs: 10, boundMs: 1_000, maxFreezeScans: 5 };

describe('sweepSession', () => {
  it('TERMs and CONTs every member and every group; ends without KILL when they leave within the grace', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log } = fakeSession(
        () => scheduler.now(),
        [
          { pid: 10, pgrp: 10, state: 'S', diesOn: ['SIGTERM'] },
          { pid: 11, pgrp: 11, state: 'T', diesOn: ['SIGTERM'] },
        ],
      );
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [10], scheduler })).toBe('10ms (r|)', {
        r: { termed: 2, escalated: false, survivors: [] },
      });
      scheduler.flush();
      expect(log.filter((l) => l.includes('KILL'))).toEqual([]);
      expect(log).toEqual(expect.arrayContaining(['0:SIGTERM:-10', '0:SIGTERM:-11', '0:SIGCONT:-10', '0:SIGCONT:-11']));
      // Members of a group TERMed have it: a second TERM by pid ran a shell's trap twice.
      expect(log.filter((l) => /:SIG(TERM|CONT):\d/.test(l))).toEqual([]);
    });
  });

  it('TERMs each member and group once, at the start; what starts during the grace is left to the freeze', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      // Ignores TERM (its handler is still cleaning up); its cleanup starts a child in a group of its own at 35 ms.
      const { sweeper, log, alive } = fakeSession(() => scheduler.now(), [{ pid: 50, pgrp: 50, state: 'S' }]);
      scheduler.schedule(() => void alive.set(51, { pid: 51, pgrp: 51, state: 'S' }), 35);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [50], scheduler })).toBe('110ms (r|)', {
        r: { termed: 1, escalated: true, survivors: [] },
      });
      scheduler.flush();
      const beforeFreeze = log.filter((l) => Number(l.split(':')[0]) < options.graceMs);
      expect(beforeFreeze).toEqual(['0:SIGTERM:-50', '0:SIGCONT:-50']);
      expect(log).toEqual(expect.arrayContaining(['100:SIGKILL:-50', '100:SIGKILL:-51']));
    });
  });

  it("TERMs a member by pid when its group could not be signalled (the group id is now a stranger's)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log, strangers } = fakeSession(
        () => scheduler.now(),
        [{ pid: 61, pgrp: 60, state: 'S', diesOn: ['SIGTERM'] }],
      );
      strangers.set(60, { pid: 60, pgrp: 99, state: 'S' });
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [], scheduler })).toBe('10ms (r|)', {
        r: { termed: 1, escalated: false, survivors: [] },
      });
      scheduler.flush();
      expect(log).toEqual(['0:SIGTERM:61', '0:SIGCONT:61']);
    });
  });

  it('freezes after the grace: STOP every known group first, then KILL groups and members; confirms empty on the next tick', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log, resumed } = fakeSession(() => scheduler.now(), [{ pid: 20, pgrp: 20, state: 'S' }]);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [20], scheduler })).toBe('110ms (r|)', {
        r: { termed: 1, escalated: true, survivors: [] },
      });
      scheduler.flush();
      const frozen = log.filter((l) => l.startsWith('100:'));
      expect(frozen.indexOf('100:SIGSTOP:-20')).toBe(0);
      expect(frozen).toContain('100:SIGKILL:-20');
      expect(resumed()).toBeGreaterThan(0);
    });
  });

  it('catches a fork-and-exit worm that no plain scan sees: the frozen scan does, the group KILL ends it', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, alive, log } = fakeSession(
        () => scheduler.now(),
        [{ pid: 30, pgrp: 30, state: 'S', worm: true }],
      );
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [30], scheduler })).toBe('110ms (r|)', {
        r: { termed: expect.any(Number), escalated: true, survivors: [] },
      });
      scheduler.flush();
      expect(alive.size).toBe(0);
      expect(log).toContain('100:SIGKILL:-30');
    });
  });

  it('does not call a session empty on a plain scan that missed a worm during the grace (frozen confirmation)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper } = fakeSession(() => scheduler.now(), [{ pid: 40, pgrp: 40, state: 'S', worm: true }]);
      // Without the frozen confirmation this would report at 10 ms, not escalated, with the worm still running.
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [40], scheduler })).toBe('110ms (r|)', {
        r: expect.objectContaining({ escalated: true, survivors: [] }),
      });
    });
  });

  it('does not call a session empty on a scan that could not read every pid made while it ran', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper } = fakeSession(() => scheduler.now(), [{ pid: 45, pgrp: 45, state: 'S', diesOn: ['SIGTERM'] }]);
      // The member leaves at the first TERM, but the scans stay incomplete until 50 ms (a machine forking hard).
      const busy: SessionSweeper = { ...sweeper, complete: () => scheduler.now() >= 50 };
      expectObservable(sweepSession(busy, { ...options, knownGroups: [45], scheduler })).toBe('50ms (r|)', {
        r: { termed: 1, escalated: false, survivors: [] },
      });
    });
  });

  it('asks for freezing scans once it freezes, and for the frozen confirmation', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper } = fakeSession(() => scheduler.now(), [{ pid: 46, pgrp: 46, state: 'S' }]);
      const scans: string[] = [];
      const watched: SessionSweeper = {
        ...sweeper,
        scan: (freezing) => {
          scans.push(`${scheduler.now()}:${freezing === true ? 'freezing' : 'plain'}`);
          return sweeper.scan(freezing);
        },
      };
      expectObservable(sweepSession(watched, { ...options, knownGroups: [46], scheduler })).toBe('110ms (r|)', {
        r: expect.objectContaining({ escalated: true, survivors: [] }),
      });
      scheduler.flush();
      // The grace's polls scan plainly; from the freeze on (100 ms), every scan stops what it finds made meanwhile.
      expect(scans.filter((scan) => Number(scan.split(':')[0]) < 100).every((scan) => scan.endsWith('plain'))).toBe(
        true,
      );
      expect(scans.filter((scan) => Number(scan.split(':')[0]) >= 100).every((scan) => scan.endsWith('freezing'))).toBe(
        true,
      );
      expect(scans.some((scan) => scan.endsWith('freezing'))).toBe(true);
    });
  });

  it('reports survivors at the bound instead of claiming the session empty', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper } = fakeSession(() => scheduler.now(), [{ pid: 50, pgrp: 50, state: 'S' }]);
      const unkillable: SessionSweeper = { ...sweeper, signal: () => undefined, signalGroup: () => false };
      expectObservable(sweepSession(unkillable, { ...options, boundMs: 300, knownGroups: [50], scheduler })).toBe(
        '300ms (r|)',
        {
          r: { termed: 1, escalated: true, survivors: [{ pid: 50, pgrp: 50, state: 'S' }] },
        },
      );
    });
  });

  it('completes at once and signals nothing but the frozen check when the session is already empty', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log } = fakeSession(() => scheduler.now(), []);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [60], scheduler })).toBe('(r|)', {
        r: { termed: 0, escalated: false, survivors: [] },
      });
      scheduler.flush();
      expect(log).toEqual(['0:SIGSTOP:-60', '0:SIGCONT:-60']);
    });
  });

  it('never signals a remembered group whose id is now a stranger’s process: the sweeper refuses it, the sweep forgets it', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log, strangers } = fakeSession(
        () => scheduler.now(),
        [
          { pid: 10, pgrp: 10, state: 'S' },
          { pid: 11, pgrp: 11, state: 'S', diesOn: ['SIGTERM'] },
        ],
      );
      // Group 11 empties at the first TERM; its id then names a job of the user's, stopped, in another session.
      scheduler.schedule(() => strangers.set(11, { pid: 11, pgrp: 11, state: 'T' }), 5);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [10], scheduler })).toBe('110ms (r|)', {
        r: { termed: 2, escalated: true, survivors: [] },
      });
      scheduler.flush();
      expect(log.filter((l) => l.endsWith(':-11') && !l.startsWith('0:'))).toEqual([]);
      expect(strangers.get(11)).toEqual({ pid: 11, pgrp: 11, state: 'T' });
      // Group 10 kept being signalled, up to the KILL.
      expect(log).toContain('100:SIGKILL:-10');
    });
  });

  it('keeps signalling a group seen once after every pid seen in it is gone: a fork-and-exit worm in a group of its own', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      // Stopped when first scanned (so seen), then continued by the sweep's CONT: a running worm no scan sees again.
      const { sweeper, log, alive } = fakeSession(
        () => scheduler.now(),
        [
          { pid: 10, pgrp: 10, state: 'S', diesOn: ['SIGTERM'] },
          { pid: 30, pgrp: 30, state: 'T', worm: true },
        ],
      );
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [10], scheduler })).toBe('110ms (r|)', {
        r: { termed: 2, escalated: true, survivors: [] },
      });
      scheduler.flush();
      expect(log).toContain('100:SIGSTOP:-30');
      expect(log).toContain('100:SIGKILL:-30');
      expect([...alive.values()]).toEqual([]);
    });
  });

  it('signals the groups the PTY remembered before this sweep (given as groups), though no scan of it sees them', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      // A running worm in its own group, seen by an earlier sweep or the lingering probe, never by this sweep's scans.
      const { sweeper, log, alive } = fakeSession(
        () => scheduler.now(),
        [{ pid: 30, pgrp: 30, state: 'S', worm: true }],
      );
      const groups = new SeenGroups([10]);
      groups.note([{ pid: 30, pgrp: 30, state: 'S' }]);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [10], groups, scheduler })).toBe('110ms (r|)', {
        r: { termed: 1, escalated: true, survivors: [] },
      });
      scheduler.flush();
      expect(log).toContain('0:SIGTERM:-30');
      expect(log).toContain('100:SIGKILL:-30');
      expect([...alive.values()]).toEqual([]);
    });
  });

  it('gives each group signal the members its latest sighting saw there, none for a known group no scan saw', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, witnesses } = fakeSession(
        () => scheduler.now(),
        [
          { pid: 10, pgrp: 10, state: 'S', diesOn: ['SIGTERM'] },
          { pid: 12, pgrp: 11, state: 'S', diesOn: ['SIGTERM'] },
          { pid: 13, pgrp: 11, state: 'T', diesOn: ['SIGTERM'] },
        ],
      );
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [7, 10], scheduler })).toBe('10ms (r|)', {
        r: { termed: 3, escalated: false, survivors: [] },
      });
      scheduler.flush();
      expect(witnesses.filter((w) => w.at === 0 && w.sig === 'SIGTERM')).toEqual([
        { at: 0, sig: 'SIGTERM', pgid: 7, seen: [] },
        { at: 0, sig: 'SIGTERM', pgid: 10, seen: [10] },
        { at: 0, sig: 'SIGTERM', pgid: 11, seen: [12, 13] },
      ]);
      // The frozen scan that confirms "empty" at 10 ms stops every group the sweep has seen, with what it saw there.
      expect(witnesses.filter((w) => w.at === 10 && w.sig === 'SIGSTOP')).toEqual([
        { at: 10, sig: 'SIGSTOP', pgid: 7, seen: [] },
        { at: 10, sig: 'SIGSTOP', pgid: 10, seen: [10] },
        { at: 10, sig: 'SIGSTOP', pgid: 11, seen: [12, 13] },
      ]);
    });
  });

  it('does not take a group whose STOP was not sent for frozen: its members are stopped one by one before the KILL', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log } = fakeSession(() => scheduler.now(), [{ pid: 20, pgrp: 20, state: 'S' }]);
      // As when its id has become a stranger's process: the real sweeper then sends nothing to the group.
      const refusing: SessionSweeper = {
        ...sweeper,
        signalGroup: (pgid, sig, seen) => sig !== 'SIGSTOP' && sweeper.signalGroup(pgid, sig, seen),
      };
      expectObservable(sweepSession(refusing, { ...options, knownGroups: [20], scheduler })).toBe('110ms (r|)', {
        r: { termed: 1, escalated: true, survivors: [] },
      });
      scheduler.flush();
      const frozen = log.filter((l) => l.startsWith('100:'));
      expect(frozen).toContain('100:SIGSTOP:20');
      expect(frozen.indexOf('100:SIGSTOP:20')).toBeLessThan(frozen.indexOf('100:SIGKILL:-20'));
    });
  });

  it('leaves no timer behind when unsubscribed', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { sweeper, log } = fakeSession(() => scheduler.now(), [{ pid: 70, pgrp: 70, state: 'S' }]);
      expectObservable(sweepSession(sweeper, { ...options, knownGroups: [70], scheduler }), '^ 29ms !').toBe('');
      scheduler.flush();
      expect(log.every((l) => Number(l.split(':')[0]) < 30)).toBe(true);
      expect(log.some((l) => l.includes('KILL'))).toBe(false);
    });
  });

  it('awaits the sweeper warming up before its first scan and signal, then sweeps as before', async () => {
    const { sweeper, log, alive } = fakeSession(() => 0, [{ pid: 7, pgrp: 7, state: 'S', diesOn: ['SIGTERM'] }]);
    let release!: () => void;
    const warmed = new Promise<void>((resolve) => (release = resolve));
    let scans = 0;
    const scan = sweeper.scan;
    const report = lastValueFrom(
      sweepSession(
        {
          ...sweeper,
          warm: () => warmed,
          scan: () => {
            scans++;
            return scan();
          },
        },
        { ...options, knownGroups: [7] },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([scans, log]).toEqual([0, []]);
    release();
    expect(await report).toEqual({ termed: 1, escalated: false, survivors: [] });
    expect(alive.size).toBe(0);
  });

  it('takes each step (a scan and the signals on what it saw) only in a turn the sweeper gives it', async () => {
    const { sweeper, log, alive } = fakeSession(() => 0, [{ pid: 7, pgrp: 7, state: 'S', diesOn: ['SIGTERM'] }]);
    const granted: Array<() => void> = [];
    let scans = 0;
    const scan = sweeper.scan;
    // A grace far longer than the test: the polite phase must not give way to the freeze on a slow machine.
    const report = lastValueFrom(
      sweepSession(
        {
          ...sweeper,
          turn: () => new Promise<void>((resolve) => granted.push(resolve)),
          scan: () => {
            scans++;
            return scan();
          },
        },
        { ...options, graceMs: 60_000, boundMs: 120_000, knownGroups: [7] },
      ),
    );
    /** Waits (real time, bounded) until the sweep asks for its next turn; never while it holds one. */
    const asked = async () => {
      for (let waited = 0; granted.length === 0; waited += 5) {
        if (waited > 10_000) throw new Error('the sweep never asked for a turn');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await asked();
    // Several poll periods pass without a turn: nothing is scanned or signalled, and no second turn is asked for.
    await new Promise((resolve) => setTimeout(resolve, options.pollMs * 3));
    expect([scans, log, granted.length]).toEqual([0, [], 1]);
    granted.shift()?.();
    await asked();
    // The first step scanned and TERMed; the next poll waits for its own turn.
    expect(scans).toBe(1);
    expect(log.some((l) => l.endsWith(':SIGTERM:-7'))).toBe(true);
    expect(granted.length).toBe(1);
    granted.shift()?.();
    await asked();
    // The poll found the session empty; its confirmation, a frozen scan, is a step of its own.
    expect([scans, granted.length]).toEqual([2, 1]);
    expect(log.some((l) => l.includes('SIGSTOP'))).toBe(false);
    granted.shift()?.();
    expect(await report).toEqual({ termed: 1, escalated: false, survivors: [] });
    expect(scans).toBe(3);
    expect(log.some((l) => l.endsWith(':SIGSTOP:-7'))).toBe(true);
    expect(alive.size).toBe(0);
  });
});
