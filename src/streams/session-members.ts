import { asyncScheduler, concat, defer, distinctUntilChanged, filter, map, Observable, of, SchedulerLike, take, takeWhile, timer } from 'rxjs';
import { allProcesses, childrenOf, readStat } from '../engine/procfs.js';
import type { ScannedMember, SessionSweeper, SweepSignal } from '../operators/sweep-session.js';

/** Finds the PTY's session leader: the child of `script` that has called setsid() (its pid is then the sid). */
export interface LeaderProbe {
  /** `nearOnly` probes only the next few pids (cheap); otherwise all of /proc may be scanned. */
  find(nearOnly: boolean): number | null;
}

/** Watches the members of a terminal session. */
export interface MemberProbe {
  /** Every live member now: a full /proc scan, milliseconds on a busy machine. */
  scan(): readonly ScannedMember[];
  /** Whether one known pid is still a live member: one small read. */
  stillMember(pid: number): boolean;
}

export interface LeaderLookupOptions {
  readonly pollMs: number;
  /** Between full scans; the polls in between are near-only. */
  readonly fullScanMs: number;
  /** Past this, the lookup gives up with null. */
  readonly deadlineMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The terminal session id of a fresh PTY, polled on the scheduler: emits the sid once found, or null when the
 * deadline passes first (the command ended before it was seen), then completes. The child almost always got one
 * of the next few pids, so most polls probe only those; all of /proc is scanned only every `fullScanMs`.
 */
export function leaderLookup$(probe: LeaderProbe, options: LeaderLookupOptions): Observable<number | null> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(() => {
    const start = scheduler.now();
    let nextFullScan = start + options.fullScanMs;
    return timer(0, options.pollMs, scheduler).pipe(
      map(() => {
        const now = scheduler.now();
        const full = now >= nextFullScan;
        if (full) nextFullScan = now + options.fullScanMs;
        return probe.find(!full);
      }),
      filter((sid) => sid !== null || scheduler.now() - start >= options.deadlineMs),
      take(1),
    );
  });
}

export interface LingerOptions {
  /** How often the known members are checked, one cheap read each. */
  readonly pollMs: number;
  /** How often the whole session is rescanned (finds members the known ones made), and always once they are all gone. */
  readonly fullScanMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The pids of a session whose leader has exited, at a bounded cost: emits the members found at subscribe, then
 * each time the set changes; emits `[]` and completes when the session is empty. Known members are checked every
 * `pollMs` with one stat read each; a full scan only every `fullScanMs`, or when the known ones are all gone
 * (to be sure nothing new is left before it says empty).
 */
export function lingeringMembers$(probe: MemberProbe, options: LingerOptions): Observable<readonly number[]> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(() => {
    let lastFullScan = scheduler.now();
    let known: readonly number[] = probe.scan().map((m) => m.pid);
    const check = (): readonly number[] => {
      const now = scheduler.now();
      const left = known.filter((pid) => probe.stillMember(pid));
      if (left.length === 0 || now - lastFullScan >= options.fullScanMs) {
        lastFullScan = now;
        known = probe.scan().map((m) => m.pid);
      } else known = left;
      return known;
    };
    return concat(of(known), timer(options.pollMs, options.pollMs, scheduler).pipe(map(check))).pipe(
      distinctUntilChanged(samePids),
      takeWhile((pids) => pids.length > 0, true),
    );
  });
}

function samePids(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((pid, i) => pid === b[i]);
}

/** The child of script once it has called setsid(). */
export function procLeaderProbe(scriptPid: number): LeaderProbe {
  return {
    find: (nearOnly) => {
      for (const c of childrenOf(scriptPid, nearOnly)) {
        if (c.sessionId === c.pid) return c.pid;
      }
      return null;
    },
  };
}

/** Members of `terminalSid` that started no earlier than `notBefore` (script's start: a pid-reuse guard). */
export function procMemberProbe(terminalSid: number, notBefore: number): MemberProbe {
  return {
    scan: () =>
      allProcesses()
        .filter((p) => p.sessionId === terminalSid && p.state !== 'Z' && p.startTime >= notBefore)
        .map(({ pid, pgrp, state }) => ({ pid, pgrp, state })),
    stillMember: (pid) => {
      const stat = readStat(pid);
      return stat !== undefined && stat.sessionId === terminalSid && stat.state !== 'Z' && stat.startTime >= notBefore;
    },
  };
}

/** The real signals for a sweep of `terminalSid`, whose `script` is `scriptPid`. */
export function procSweeper(terminalSid: number, notBefore: number, scriptPid: number): SessionSweeper {
  const probe = procMemberProbe(terminalSid, notBefore);
  return {
    scan: probe.scan,
    signal: (pid, signal) => signalQuietly(pid, signal),
    // A group id ≤ 1 would mean "our own group" or "everyone": never sent, whatever a scan said.
    signalGroup: (pgid, signal) => {
      if (pgid > 1) signalQuietly(-pgid, signal);
    },
    resumeOutsiders: () => {
      const stat = readStat(scriptPid);
      if (stat !== undefined && stat.startTime === notBefore && (stat.state === 'T' || stat.state === 't')) signalQuietly(scriptPid, 'SIGCONT');
    },
  };
}

export function signalQuietly(pid: number, signal: SweepSignal): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
