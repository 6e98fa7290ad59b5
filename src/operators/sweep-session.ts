import { SeenGroups } from './seen-groups.js';
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
  /** Its process group: signalled as a whole while the latest scan saw a member in it (see signalGroup). */
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
  /**
   * Every live member of the terminal session now (a full scan). `freezing`: a member made while the scan ran is
   * stopped (SIGSTOP, it and its group) as soon as the scan reads it, before it can fork again.
   */
  scan(freezing?: boolean): readonly ScannedMember[];
  /**
   * Whether the latest scan saw every process made while it ran; false only on a machine that made too many
   * meanwhile. Only a complete scan that found no member ends a sweep. Default: every scan is.
   */
  complete?(): boolean;
  /** Signals one process; one already gone is not an error. */
  signal(pid: number, signal: SweepSignal): void;
  /**
   * Signals a whole process group (kill(-pgid)): atomic with respect to fork, which a per-pid signal is not. `seen`
   * are the members the group's latest sighting saw in it (none for a known group no scan saw a member of). The real
   * one refuses a group whose id is now another session's process (signalSessionGroup). Returns whether it sent.
   */
  signalGroup(pgid: number, signal: SweepSignal, seen: readonly ScannedMember[]): boolean;
  /**
   * Called after each KILL round and when a frozen sweep ends: wakes what outside the session the freeze stopped.
   * `script` stops ITSELF when its child (the session leader) is stopped (util-linux's job-control callback), and a
   * stopped `script` never exits; it must get SIGCONT once the leader is killed.
   */
  resumeOutsiders(): void;
}

export interface SweepOptions {
  /**
   * Groups signalled whatever the scans saw: the session leader's own (its pgid is the sid, which Linux does not
   * reuse while the session has a member), where the program's children stay after the leader has exited.
   */
  readonly knownGroups: readonly number[];
  /**
   * The PTY's remembered groups, shared with its other sweeps and its lingering probe (a sweep after another must not
   * forget a worm's group the first one saw); its known groups should hold `knownGroups`. Default: a fresh memory.
   */
  readonly groups?: SeenGroups;
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

/** /proc's state letter of a stopped process (T by a signal, t by a tracer). */
export const isStopped = (state: string): boolean => state === 'T' || state === 't';

/**
 * Ends every process of a PTY's terminal session so that forking cannot outrun it.
 *
 * TERM + CONT, once, to every member and to every process group seen (a stopped job must wake to see TERM), then a
 * scan every `pollMs` until the session is empty. When `graceMs` passes with members left, FREEZE: SIGSTOP every group and
 * member and rescan until a scan finds every member stopped and no new one, then SIGKILL them all, groups too;
 * repeat each tick until a scan finds the session empty. A signal sent to a group is pending for every member at
 * once and aborts a fork in progress, so a fork-and-exit worm (a new pid every millisecond, each younger than
 * one scan) is stopped whole and cannot slip a child past the KILL. `setsid` leaves the session and is the one
 * escape. Every group a scan of the sweep saw a member in is signalled, as are the known ones (SeenGroups), unless
 * the sweeper refuses one (SessionSweeper.signalGroup): a group id is a pid, and a group that emptied may have left
 * its id to a stranger's job that CONT would resume or KILL would end.
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
    // The known groups and every group a scan of this sweep saw a member in (see SeenGroups).
    const groups = options.groups ?? new SeenGroups(options.knownGroups);
    const scan = (freezing = false) => {
      const members = sweeper.scan(freezing);
      groups.note(members);
      return members;
    };
    /** No member, and the scan saw everything made while it ran (SessionSweeper.complete). */
    const empty = (members: readonly ScannedMember[]) => members.length === 0 && (sweeper.complete?.() ?? true);
    /** Signals the groups; returns the ones sent. */
    const signalGroups = (signal: SweepSignal): Set<number> =>
      groups.signal((pgrp, seen) => sweeper.signalGroup(pgrp, signal, seen));
    /**
     * A scan can miss a process that forks and exits faster than /proc is read. Only a scan made while the groups
     * are stopped is trusted to say "empty"; the groups are then continued.
     */
    const frozenScan = () => {
      signalGroups('SIGSTOP');
      const members = scan(true);
      signalGroups('SIGCONT');
      sweeper.resumeOutsiders();
      return members;
    };
    /**
     * A scan, confirmed by a frozen scan when it found no one, each a step of its own: two listings of /proc in one
     * turn held the loop twice as long. Whatever acts on the members found does so in the turn that found them.
     */
    const scanConfirmed = (): Observable<readonly ScannedMember[]> =>
      step(() => scan()).pipe(concatMap((members) => (members.length > 0 ? of(members) : step(frozenScan))));
    const termed = new Set<number>();
    /**
     * TERM (and CONT) to every member and group there is when the sweep begins, once, as systemd stops a unit: a
     * program's TERM handler is its clean shutdown. A TERM at every scan restarted a shell's `trap` cleanup 79 times
     * until the KILL and told programs that take a second TERM as "quit now" to skip theirs; TERMing what the
     * cleanup itself starts (found by the scans) cut it short (both found by a user test). What starts during the grace
     * runs until it ends or the freeze KILLs it.
     */
    const terminate = (members: readonly ScannedMember[]) => {
      const signalled = signalGroups('SIGTERM');
      signalGroups('SIGCONT');
      for (const m of members) {
        termed.add(m.pid);
        // A member whose group was TERMed has it; a second TERM by pid, should the program handle the first before
        // it came, ran a shell's trap cleanup twice.
        if (signalled.has(m.pgrp)) continue;
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
      filter(empty),
      take(1),
      map(() => done(false, [])),
    );
    const freeze$ = timer(0, pollMs, scheduler).pipe(
      exhaustMap(() =>
        step(() => {
          // Frozen first, so that this scan is one to trust.
          const stopped = signalGroups('SIGSTOP');
          return { members: scan(true), stopped };
        }),
      ),
      map(({ members, stopped }) => {
        if (members.length > 0)
          freezeAndKill(sweeper, members, stopped, () => scan(true), signalGroups, maxFreezeScans);
        return members;
      }),
      filter((members) => {
        sweeper.resumeOutsiders();
        return empty(members);
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
        if (empty(first)) return of<SweepReport>({ termed: 0, escalated: false, survivors: [] });
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
  signalGroups: (signal: SweepSignal) => unknown,
  maxScans: number,
): void {
  let members = found;
  let previous = new Set<number>();
  const frozenAlready = members.every((m) => stoppedBefore.has(m.pgrp));
  for (let round = 0; round < maxScans && !frozenAlready; round++) {
    signalGroups('SIGSTOP');
    for (const m of members) sweeper.signal(m.pid, 'SIGSTOP');
    const settled = members.every((m) => isStopped(m.state) && previous.has(m.pid));
    if (settled) break;
    previous = new Set(members.map((m) => m.pid));
    members = scan();
    if (members.length === 0) return;
  }
  // Settled, or out of scans: KILL what this round holds; the next tick's frozen scan finds anything it missed.
  signalGroups('SIGKILL');
  for (const m of members) sweeper.signal(m.pid, 'SIGKILL');
}
