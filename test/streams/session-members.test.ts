import { PassThrough } from 'node:stream';
import {
  leaderLookup$,
  lingeringMembers$,
  type MemberProbe,
  reportedLeader$,
} from '../../src/streams/session-members.js';
import { testScheduler } from '../support/marbles.js';

describe('leaderLookup$', () => {
  it('emits the session id once found, probing near pids between full scans', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const calls: string[] = [];
      const probe = {
        find: (nearOnly: boolean) => {
          calls.push(`${scheduler.now()}:${nearOnly ? 'near' : 'full'}`);
          return scheduler.now() >= 6 ? 77 : null;
        },
      };
      expectObservable(leaderLookup$(probe, { pollMs: 2, fullScanMs: 4, deadlineMs: 100, scheduler })).toBe(
        '6ms (s|)',
        { s: 77 },
      );
      scheduler.flush();
      expect(calls).toEqual(['0:near', '2:near', '4:full', '6:near']);
    });
  });

  it('gives up with null at the deadline', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(
        leaderLookup$({ find: () => null }, { pollMs: 5, fullScanMs: 50, deadlineMs: 20, scheduler }),
      ).toBe('20ms (n|)', { n: null });
    });
  });
});

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

describe('reportedLeader$', () => {
  const SCRIPT_PID = 500;
  /** Feeds the channel the given chunks and ends it; resolves with what the report stream gave. */
  async function reported(chunks: readonly string[]): Promise<number[]> {
    const channel = new PassThrough();
    const seen: number[] = [];
    const done = new Promise<void>((resolve) =>
      reportedLeader$(channel, SCRIPT_PID).subscribe({ next: (pid) => seen.push(pid), complete: resolve }),
    );
    for (const chunk of chunks) channel.write(chunk);
    channel.end();
    await done;
    return seen;
  }

  it('gives the pid the wrapper wrote, even split across reads', async () => {
    expect(await reported(['4242\n'])).toEqual([4242]);
    expect(await reported(['42', '42', '\n'])).toEqual([4242]);
  });

  it('gives nothing for what is not a pid of another process: text, 0, 1, script’s own pid, an endless line', async () => {
    for (const chunks of [['x1\n'], ['0\n'], ['1\n'], [`${SCRIPT_PID}\n`], ['1'.repeat(40)], ['12.5\n'], ['']]) {
      expect({ chunks, pids: await reported(chunks) }).toEqual({ chunks, pids: [] });
    }
  });

  it('completes without a value when the channel ends before a whole line', async () => {
    expect(await reported(['42'])).toEqual([]);
  });
});
