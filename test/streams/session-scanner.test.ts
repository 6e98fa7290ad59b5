import type { ProcStat } from '../../src/engine/procfs.js';
import { MAX_CHASED_PIDS, SCAN_SLICE_PROCESSES } from '../../src/limits.js';
import { ListedSessions, type ProcSource, sessionScanner } from '../../src/streams/session-scanner.js';

const SID = 500;

/** A machine of `count` processes from pid 1000 on, every 7th a member of session SID; reads counted per turn. */
function machine(count: number) {
  const procs = new Map<number, ProcStat>();
  for (let i = 0; i < count; i++) {
    const pid = 1_000 + i;
    const member = i % 7 === 0;
    procs.set(pid, {
      pid,
      state: 'S',
      ppid: 1,
      pgrp: member ? SID : pid,
      sessionId: member ? SID : pid,
      ttyNr: 0,
      startTime: 10,
    });
  }
  const reads = { total: 0, thisTurn: 0, maxPerTurn: 0 };
  const source: ProcSource = {
    list: () => ['self', 'stat', ...[...procs.keys()].map(String)],
    read: (pid) => {
      reads.total++;
      reads.thisTurn++;
      return procs.get(pid);
    },
  };
  /** Counts reads per event-loop turn until stopped: each check phase closes the turn before it. */
  const watchTurns = () => {
    let running = true;
    const tick = () => {
      reads.maxPerTurn = Math.max(reads.maxPerTurn, reads.thisTurn);
      reads.thisTurn = 0;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    return () => {
      running = false;
      tick();
    };
  };
  return { procs, source, reads, watchTurns };
}

describe('sessionScanner', () => {
  it('finds the same members in slices as in one go, never reading more than a slice per event-loop turn', async () => {
    const { source, reads, watchTurns } = machine(1_000);
    let clock = 0;
    const whole = sessionScanner(SID, 0, () => clock, source, new ListedSessions()).scan();
    expect(whole.map((m) => m.pid)).toEqual([...Array(143).keys()].map((i) => 1_000 + 7 * i));
    expect(reads.total).toBe(1_000);

    reads.total = 0;
    reads.thisTurn = 0;
    reads.maxPerTurn = 0;
    const stop = watchTurns();
    clock = 10_000;
    const sliced = await sessionScanner(SID, 0, () => clock, source, new ListedSessions()).scanInSlices();
    stop();
    expect(sliced).toEqual(whole);
    expect(reads.total).toBe(1_000);
    expect(reads.maxPerTurn).toBe(SCAN_SLICE_PROCESSES);
  });

  it('reads again only new pids and members when scanned again soon, in slices or not', async () => {
    const { procs, source, reads } = machine(1_000);
    let clock = 0;
    const scanner = sessionScanner(SID, 0, () => clock, source, new ListedSessions());
    await scanner.scanInSlices();
    procs.set(5_000, { pid: 5_000, state: 'R', ppid: 1_000, pgrp: SID, sessionId: SID, ttyNr: 0, startTime: 11 });
    reads.total = 0;
    clock = 500;
    const again = scanner.scan();
    // 143 members read again, and the new one; the 857 strangers listed before are not.
    expect(reads.total).toBe(144);
    expect(again.map((m) => m.pid)).toContain(5_000);
    // Past the cache's age, everything is read again.
    reads.total = 0;
    clock = 5_000;
    await scanner.scanInSlices();
    expect(reads.total).toBe(1_001);
  });

  it('shares what it read with the scanners of other sessions: PTYs swept at once read /proc once', () => {
    const { procs, source, reads } = machine(1_000);
    const listed = new ListedSessions();
    const clock = () => 0;
    const ours = sessionScanner(SID, 0, clock, source, listed);
    // Another PTY's session, with two members among the strangers of ours.
    procs.set(1_001, { ...(procs.get(1_001) as ProcStat), sessionId: 900, pgrp: 900 });
    procs.set(1_002, { ...(procs.get(1_002) as ProcStat), sessionId: 900, pgrp: 900 });
    const theirs = sessionScanner(900, 0, clock, source, listed);
    expect(ours.scan()).toHaveLength(143);
    expect(reads.total).toBe(1_000);
    reads.total = 0;
    // Only the pids read as its own session's are read again: every other one is known not to be a member.
    expect(theirs.scan().map((m) => m.pid)).toEqual([1_001, 1_002]);
    expect(reads.total).toBe(2);
    // A zombie member is no one's member from then on, and is not read again.
    procs.set(1_007, { ...(procs.get(1_007) as ProcStat), state: 'Z' });
    reads.total = 0;
    expect(ours.scan()).toHaveLength(142);
    expect(reads.total).toBe(143);
    reads.total = 0;
    expect(ours.scan()).toHaveLength(142);
    expect(reads.total).toBe(142);
  });

  it('kept listed more often than the record ages, it reads only new pids however long ago the last scan was', () => {
    const { procs, source, reads } = machine(1_000);
    let clock = 0;
    const scanner = sessionScanner(SID, 0, () => clock, source, new ListedSessions());
    scanner.scan();
    for (clock = 800; clock <= 4_800; clock += 800) scanner.keepListed();
    procs.set(6_000, { pid: 6_000, state: 'S', ppid: 1, pgrp: 6_000, sessionId: 6_000, ttyNr: 0, startTime: 12 });
    procs.delete(1_001);
    reads.total = 0;
    scanner.scan();
    // The members, and the one new pid; the strangers still listed are known, the gone one is not asked for.
    expect(reads.total).toBe(143 + 1);
    // Listed too late (the record had aged out): nothing is carried over, and the next scan reads everything.
    clock += 5_000;
    scanner.keepListed();
    reads.total = 0;
    scanner.scan();
    expect(reads.total).toBe(procs.size);
  });

  it('warms the shared record once for every caller at the same time, in slices; the scans after read only members', async () => {
    const { source, reads, watchTurns } = machine(1_000);
    const listed = new ListedSessions();
    const clock = () => 0;
    const scanners = [SID, 900, 901].map((sid) => sessionScanner(sid, 0, clock, source, listed));
    const stop = watchTurns();
    await Promise.all(scanners.map((s) => s.warm()));
    stop();
    expect(reads.total).toBe(1_000);
    expect(reads.maxPerTurn).toBe(SCAN_SLICE_PROCESSES);
    reads.total = 0;
    expect(scanners[0]?.scan()).toHaveLength(143);
    expect(reads.total).toBe(143);
    // Valid already: nothing to read.
    reads.total = 0;
    await scanners[1]?.warm();
    expect(reads.total).toBe(0);
  });

  it("reads the session's leader even when a scan listed it in another session, between fork and setsid", () => {
    const { procs, source, reads } = machine(1_000);
    const listed = new ListedSessions();
    const clock = () => 0;
    // Forked by `script` (session 300), not yet its own leader, when another PTY's scan lists it.
    procs.set(7_000, { pid: 7_000, state: 'R', ppid: 6_999, pgrp: 300, sessionId: 300, ttyNr: 0, startTime: 20 });
    sessionScanner(900, 0, clock, source, listed).scan();
    // Then setsid(): it leads session 7000, and so does the program it execs.
    procs.set(7_000, { pid: 7_000, state: 'S', ppid: 6_999, pgrp: 7_000, sessionId: 7_000, ttyNr: 0, startTime: 20 });
    reads.total = 0;
    expect(sessionScanner(7_000, 0, clock, source, listed).scan()).toEqual([{ pid: 7_000, pgrp: 7_000, state: 'S' }]);
    expect(reads.total).toBe(1);
  });
});

describe('sessionScanner, the pids made while a scan ran', () => {
  const READS_PER_FORK = 5;
  const stat = (pid: number, sessionId: number, pgrp = pid): ProcStat => ({
    pid,
    state: 'R',
    ppid: 1,
    pgrp,
    sessionId,
    ttyNr: 0,
    startTime: 10,
  });

  /**
   * A worm the listing cannot show: while the scan reads the listed pids, the member it listed exits and its child
   * (a new pid, in a group of its own) takes its place, once every few reads (a stat read is far quicker than a
   * fork), unless it was stopped.
   */
  function wormMachine(options: { pidMax?: number; firstPid?: number; threads?: number[] } = {}) {
    const procs = new Map<number, ProcStat>();
    // Other processes of the machine, listed before the worm: reading them gives it time to breed.
    for (let pid = 1_000; pid < 1_050; pid++) procs.set(pid, stat(pid, pid));
    let last = options.firstPid ?? 2_000;
    const wrap = options.pidMax ?? 32_768;
    const nextPid = () => {
      last = last >= wrap - 1 ? 301 : last + 1;
      return last;
    };
    let worm = nextPid();
    procs.set(worm, stat(worm, SID));
    const stopped = new Set<number>();
    const breed = () => {
      if (stopped.has(worm)) return;
      procs.delete(worm);
      worm = nextPid();
      procs.set(worm, stat(worm, SID));
    };
    let reads = 0;
    const source: ProcSource = {
      // /proc lists processes, not their other threads (which can be read all the same).
      list: () => [...procs.keys()].filter((pid) => !(options.threads ?? []).includes(pid)).map(String),
      read: (pid) => {
        if (++reads % READS_PER_FORK === 0) breed();
        return procs.get(pid);
      },
      lastPid: () => last,
      pidMax: () => wrap,
      isProcess: (pid) => !(options.threads ?? []).includes(pid),
    };
    return { procs, source, stopped, current: () => worm };
  }

  it('finds a member made after the listing and hands it over at once, so that it can be stopped', () => {
    const { source, stopped, current } = wormMachine();
    const scanner = sessionScanner(SID, 0, () => 0, source, new ListedSessions());
    const chased: number[] = [];
    const members = scanner.scan((m) => {
      chased.push(m.pid);
      stopped.add(m.pid);
    });
    expect(members.map((m) => m.pid)).toContain(current());
    // Stopped as soon as it was read: the worm forks no more, and the chase ends at it.
    expect(chased.at(-1)).toBe(current());
    expect(stopped.has(current())).toBe(true);
    expect(scanner.complete()).toBe(true);
  });

  it('without the chase the listing alone misses the worm (the test can fail)', () => {
    const { source } = wormMachine();
    const { lastPid: _, ...listingOnly } = source;
    const scanner = sessionScanner(SID, 0, () => 0, listingOnly, new ListedSessions());
    expect(scanner.scan()).toEqual([]);
  });

  it('follows pids past pid_max back to the lowest, and skips other threads of a process', () => {
    const { source, stopped, current, procs } = wormMachine({ pidMax: 2_006, firstPid: 2_004, threads: [250] });
    procs.set(250, stat(250, SID));
    const scanner = sessionScanner(SID, 0, () => 0, source, new ListedSessions());
    const members = scanner.scan((m) => stopped.add(m.pid));
    expect(current()).toBeLessThan(2_000);
    expect(members.map((m) => m.pid)).toContain(current());
    expect(members.map((m) => m.pid)).not.toContain(250);
  });

  it(`says a scan is incomplete when more than ${MAX_CHASED_PIDS} pids were made while it ran`, () => {
    const { source } = wormMachine();
    let last = 2_000;
    const busy: ProcSource = { ...source, lastPid: () => (last += MAX_CHASED_PIDS + 1) };
    const scanner = sessionScanner(SID, 0, () => 0, busy, new ListedSessions());
    scanner.scan();
    expect(scanner.complete()).toBe(false);
  });
});
