import {
  concatMap,
  defer,
  exhaustMap,
  filter,
  from,
  map,
  type Observable,
  of,
  type SchedulerLike,
  take,
  timeout,
  timer,
} from 'rxjs';

export type SweepSignal = 'SIGTERM' | 'SIGCONT' | 'SIGSTOP' | 'SIGKILL';

/** A live (non-zombie) process of the PTY's terminal session, as one scan saw it. */
export interface ScannedMember {
  readonly pid: number;
  /** Its process group: every group seen in a scan is signalled as a whole. */
  readonly pgrp: number;
  /** /proc state letter: T/t is stopped. */
  readonly state: string;
}

/** The OS side of a sweep, injectable so the rules are marble-tested in virtual time. */
export interface SessionSweeper {
  /**
   * Awaited once before the first scan: lets the scans that follow be cheap without holding the host's loop for a
   * whole /proc read now (the real one reads what the shared record lacks, in slices; ListedSessions.warm).
   */
  warm?(): Promise<void>;
  /**
   * Awaited before each synchronous step (a scan and the signals that act on it): the real one gives every sweep of
   * the host a turn of its own for each step (StepTurns), so sweeps started together never hold the loop together.
   */
  turn?(): Promise<void>;
  /** Every live member of the terminal session now (a full scan). */
  scan(): readonly ScannedMember[];
  /** Signals one process; one already gone is not an error. */
  signal(pid: number, signal: SweepSignal): void;
  /** Signals a whole process group (kill(-pgid)): atomic with respect to fork, which a per-pid signal is not. */
  signalGroup(pgid: number, signal: SweepSignal): void;
  /**
   * Called after each KILL round and when a frozen sweep ends: wakes what outside the session the freeze stopped.
   * `script` stops ITSELF when its child (the session leader) is stopped (util-linux's job-control callback), and a
   * stopped `script` never exits; it must get SIGCONT once the leader is killed.
   */
  resumeOutsiders(): void;
}

export interface SweepOptions {
  /** Groups known before any scan: the session leader's own (its pgid is the sid). */
  readonly knownGroups: readonly number[];
  /** Between TERM and the freeze. */
  readonly graceMs: number;
  readonly pollMs: number;
  /** The whole sweep; past it the members still there are reported as survivors. */
  readonly boundMs: number;
  readonly maxFreezeScans: number;
  readonly scheduler?: SchedulerLike;
}

export interface SweepReport {
  /** Processes that got TERM (the first scan and any found during the grace period). */
  readonly termed: number;
  /** The grace period passed with members left: they were frozen and KILLed. */
  readonly escalated: boolean;
  /** Members still in the session when the bound passed (empty when the sweep emptied the session). */
  readonly survivors: readonly ScannedMember[];
}

const isStopped = (state: string) => state === 'T' || state === 't';

/**
 * Ends every process of a PTY's terminal session so that forking cannot outrun it.
 *
 * TERM + CONT to every member and to every process group seen (a stopped job must wake to see TERM), re-scanning
 * every `pollMs` and TERMing newcomers. When `graceMs` passes with members left, FREEZE: SIGSTOP every group and
 * member and rescan until a scan finds every member stopped and no new one, then SIGKILL them all, groups too;
 * repeat each tick until a scan finds the session empty. A signal sent to a group is pending for every member at
 * once and aborts a fork in progress, so a fork-and-exit worm (a new pid every millisecond, each younger than
 * one scan) is stopped whole and cannot slip a child past the KILL. `setsid` leaves the session and is the one
 * escape. Groups are only signalled as seen in the current scan (a group id is a pid and could be reused).
 * Emits one report and completes, within `boundMs`.
 *
 * @example
 * sweepSession(procSweeper(terminalSid, scriptStart), { graceMs: 2000, pollMs: 25, boundMs: 10_000, maxFreezeScans: 20 })
 */
export function sweepSession(sweeper: SessionSweeper, options: SweepOptions): Observable<SweepReport> {
  const { warm } = sweeper;
  const warmed$ = warm === undefined ? of(undefined) : defer(() => warm());
  return warmed$.pipe(concatMap(() => sweepNow(sweeper, options)));
}

function sweepNow(sweeper: SessionSweeper, options: SweepOptions): Observable<SweepReport> {
  const { graceMs, pollMs, boundMs, maxFreezeScans, scheduler } = options;
  const { turn } = sweeper;
  /** `work`, in a turn of its own when the sweeper hands out turns; synchronous otherwise (marble tests). */
  const step = <T>(work: () => T): Observable<T> =>
    turn === undefined ? defer(() => of(work())) : defer(() => from(turn())).pipe(map(work));
  return defer(() => {
    // Every group ever seen in the session: a member the scans missed is still in one of them.
    const groups = new Set(options.knownGroups);
    const scan = () => {
      const members = sweeper.scan();
      for (const m of members) groups.add(m.pgrp);
      return members;
    };
    const signalGroups = (signal: SweepSignal) => {
      for (const pgrp of groups) sweeper.signalGroup(pgrp, signal);
    };
    /**
     * A scan can miss a process that forks and exits faster than /proc is read. Only a scan made while every
     * known group is stopped is trusted to say "empty"; the groups are then continued.
     */
    const frozenScan = () => {
      signalGroups('SIGSTOP');
      const members = scan();
      signalGroups('SIGCONT');
      sweeper.resumeOutsiders();
      return members;
    };
    /**
     * A scan, confirmed by a frozen scan when it found no one, each a step of its own: two listings of /proc in one
     * turn held the loop twice as long. Whatever acts on the members found does so in the turn that found them.
     */
    const scanConfirmed = (): Observable<readonly ScannedMember[]> =>
      step(scan).pipe(concatMap((members) => (members.length > 0 ? of(members) : step(frozenScan))));
    const termed = new Set<number>();
    const terminate = (members: readonly ScannedMember[]) => {
      signalGroups('SIGTERM');
      signalGroups('SIGCONT');
      for (const m of members) {
        if (termed.has(m.pid)) continue;
        termed.add(m.pid);
        sweeper.signal(m.pid, 'SIGTERM');
        sweeper.signal(m.pid, 'SIGCONT');
      }
    };
    const done = (escalated: boolean, survivors: readonly ScannedMember[]): SweepReport => ({
      termed: termed.size,
      escalated,
      survivors,
    });

    // exhaustMap: a tick that comes while the last one still waits for its turn is skipped, not queued.
    const polite$ = timer(pollMs, pollMs, scheduler).pipe(
      exhaustMap(scanConfirmed),
      filter((members) => {
        if (members.length > 0) terminate(members);
        return members.length === 0;
      }),
      take(1),
      map(() => done(false, [])),
    );
    const freeze$ = timer(0, pollMs, scheduler).pipe(
      exhaustMap(() =>
        step(() => {
          // Frozen first, so that this scan is one to trust.
          signalGroups('SIGSTOP');
          const stopped = new Set(groups);
          return { members: scan(), stopped };
        }),
      ),
      map(({ members, stopped }) => {
        if (members.length > 0) freezeAndKill(sweeper, members, stopped, scan, groups, maxFreezeScans);
        return members;
      }),
      filter((members) => {
        sweeper.resumeOutsiders();
        return members.length === 0;
      }),
      take(1),
      map(() => done(true, [])),
    );
    const swept$ = polite$.pipe(
      timeout({ first: graceMs, with: () => freeze$, ...(scheduler ? { scheduler } : {}) }),
      timeout({ first: boundMs, with: () => step(() => done(true, scan())), ...(scheduler ? { scheduler } : {}) }),
    );
    return scanConfirmed().pipe(
      concatMap((first) => {
        if (first.length === 0) return of<SweepReport>({ termed: 0, escalated: false, survivors: [] });
        terminate(first);
        return swept$;
      }),
    );
  });
}

/**
 * One freeze round: stop everything until a scan shows all stopped and nothing new, then KILL all of it. Members
 * whose groups were stopped before the scan cannot fork any more (a group signal aborts a fork in progress), so
 * when the scan found only those, the KILL follows at once.
 */
function freezeAndKill(
  sweeper: SessionSweeper,
  found: readonly ScannedMember[],
  stoppedBefore: ReadonlySet<number>,
  scan: () => readonly ScannedMember[],
  groups: ReadonlySet<number>,
  maxScans: number,
): void {
  let members = found;
  let previous = new Set<number>();
  const frozenAlready = members.every((m) => stoppedBefore.has(m.pgrp));
  for (let round = 0; round < maxScans && !frozenAlready; round++) {
    for (const pgrp of groups) sweeper.signalGroup(pgrp, 'SIGSTOP');
    for (const m of members) sweeper.signal(m.pid, 'SIGSTOP');
    const settled = members.every((m) => isStopped(m.state) && previous.has(m.pid));
    if (settled) break;
    previous = new Set(members.map((m) => m.pid));
    members = scan();
    if (members.length === 0) return;
  }
  // Settled, or out of scans: KILL what this round holds; the next tick's frozen scan finds anything it missed.
  for (const pgrp of groups) sweeper.signalGroup(pgrp, 'SIGKILL');
  for (const m of members) sweeper.signal(m.pid, 'SIGKILL');
}
