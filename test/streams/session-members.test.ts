import { lingeringMembers$, type MemberProbe } from '../../src/streams/session-members.js';
import { testScheduler } from '../support/marbles.js';

describe('lingeringMembers$', () => {
  /** Members leave at given virtual times; a full scan also finds `late` ones (made by a lingering member). */
  function fakeProbe(now: () => number, members: Array<{ pid: number; leavesAt: number; seenFrom?: number }>) {
    const counts = { scan: 0, frozen: 0, still: 0, listed: 0 };
    const live = (full: boolean) => members.filter((m) => now() < m.leavesAt && (!full || (m.seenFrom ?? 0) <= now()));
    const probe: MemberProbe = {
      scan: () => {
        counts.scan++;
        return live(true).map((m) => ({ pid: m.pid, pgrp: m.pid, state: 'S' }));
      },
      scanInSlices: async () => probe.scan(),
      keepListed: () => {
        counts.listed++;
      },
      warm: async () => undefined,
      frozenScan: () => {
        counts.frozen++;
        return live(true).map((m) => ({ pid: m.pid, pgrp: m.pid, state: 'T' }));
      },
      stillMember: (pid) => {
        counts.still++;
        return live(false).some((m) => m.pid === pid);
      },
    };
    return { probe, counts };
  }

  it('emits the members at once, each change, then [] and completes; full scans only at their interval or when all known left', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { probe, counts } = fakeProbe(
        () => scheduler.now(),
        [
          { pid: 1, leavesAt: 25 },
          { pid: 2, leavesAt: 45, seenFrom: 0 },
          { pid: 3, leavesAt: 65, seenFrom: 30 },
        ],
      );
      expectObservable(lingeringMembers$(probe, { pollMs: 10, fullScanMs: 40, scheduler })).toBe(
        'a 29ms b 9ms c 9ms d 19ms (e|)',
        {
          a: [1, 2],
          b: [2],
          c: [2, 3],
          d: [3],
          e: [],
        },
      );
      scheduler.flush();
      // Full scans at 0, 40 (the interval) and 70 (every known member had left, so the frozen one too): never one per poll.
      expect(counts.scan).toBe(3);
      expect(counts.frozen).toBe(1);
      // Every poll between them lists /proc, so that the next full scan reads only new pids.
      expect(counts.listed).toBe(5);
    });
  });

  it('stops polling when unsubscribed', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { probe, counts } = fakeProbe(() => scheduler.now(), [{ pid: 9, leavesAt: 1_000 }]);
      expectObservable(lingeringMembers$(probe, { pollMs: 10, fullScanMs: 40, scheduler }), '^ 25ms !').toBe('a', {
        a: [9],
      });
      scheduler.flush();
      expect(counts.still).toBe(2);
    });
  });
});
