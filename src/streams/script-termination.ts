import { catchError, defer, map, type Observable, of, type SchedulerLike, shareReplay, take, tap, timeout } from 'rxjs';
import { childrenOf } from '../engine/procfs.js';
import { missedLeaderDeath } from '../engine/script-missed-death.js';
import {
  MAX_FREEZE_SCANS,
  SCRIPT_EXIT_BACKSTOP_MS,
  SCRIPT_REAP_MS,
  SCRIPT_STUCK_CHECKS,
  TERMINATE_GRACE_MS,
  TERMINATE_POLL_MS,
  TERMINATE_TIMEOUT_MS,
} from '../limits.js';
import { killAndReap } from '../operators/kill-and-reap.js';
import { SeenGroups } from '../operators/seen-groups.js';
import { scriptBackstop } from '../operators/script-backstop.js';
import { sweepSession } from '../operators/sweep-session.js';
import { procLeaderProbe } from './session-leader.js';
import { procMemberProbe } from './session-members.js';
import { signalQuietly } from './session-signals.js';
import { procSweeper } from './session-sweeper.js';
import { describeMembers, NO_MEMBERS, type TerminationReport } from './session-report.js';

const UNNAMEABLE: TerminationReport = { termed: 0, escalated: false, scriptKilled: false, survivors: NO_MEMBERS };

export interface ScriptTerminationDeps {
  /** pid of `script`. */
  readonly pid: number;
  /** script's start time: members must have started no earlier (a pid-reuse guard). Read once, when first needed. */
  readonly scriptStart: () => number;
  /** The terminal's session id, once known. */
  readonly terminalSid: () => number | null;
  /** Emits once Node has reaped `script`. */
  readonly exited$: Observable<unknown>;
  /** SIGKILLs `script` unless it is already gone. */
  readonly killScript: () => void;
  /** A sweep saw the session empty: it stays empty (nothing can join a session from outside). */
  readonly onEmptied: () => void;
  /** The PTY's remembered process groups for session `sid` (shared with its lingering probe); default: its own. */
  readonly groups?: (sid: number) => SeenGroups;
  readonly scheduler?: SchedulerLike;
}

/**
 * How a PTY ends its whole terminal session: the returned `terminate` sweeps it (TERM → grace → freeze → KILL,
 * see sweep-session.ts), then gives `script` a backstop to exit and kills and reaps it past that. Bounded by
 * TERMINATE_TIMEOUT_MS; should /proc fail or the bound pass, `script` goes (which hangs up the terminal) and the
 * members still found are reported. Concurrent calls share one sweep; a call after a sweep that left survivors
 * sweeps again.
 */
export function scriptTermination(deps: ScriptTerminationDeps): () => Observable<TerminationReport> {
  const { pid, scriptStart, terminalSid, exited$, killScript, onEmptied, scheduler } = deps;
  // One memory of the session's groups for every sweep of this PTY: a second sweep must not forget a worm's group.
  let ownGroups: SeenGroups | undefined;
  const groupsOf = (sid: number): SeenGroups => {
    if (deps.groups !== undefined) return deps.groups(sid);
    ownGroups ??= new SeenGroups([sid]);
    return ownGroups;
  };
  const on = scheduler ? { scheduler } : {};

  const giveUp = (): Observable<TerminationReport> => {
    // Reaped, script's pid may be another process's already: then it is not killed, and the report says so.
    const scriptKilled = !reaped;
    if (scriptKilled) killScript();
    const sid = terminalSid() ?? foundSid;
    const survivors =
      sid === null
        ? NO_MEMBERS
        : describeMembers(
            procMemberProbe(sid, scriptStart())
              .scan()
              .map((m) => m.pid),
          );
    return of({ termed: 0, escalated: true, scriptKilled, survivors });
  };

  // Once Node has reaped script, its pid may be another process's: nothing is looked up or signalled by it.
  let reaped = false;
  exited$.pipe(take(1)).subscribe(() => (reaped = true));
  // The sid a sweep found by itself (the lookup had not answered): a later sweep, after script is gone, needs it.
  let foundSid: number | null = null;
  const sessionId = (): number | null => {
    foundSid ??= terminalSid() ?? (reaped ? null : procLeaderProbe(pid).find(false));
    return foundSid;
  };

  const sweep$ = (): Observable<TerminationReport> =>
    defer(() => {
      const sid = sessionId();
      // (Script reaped with no session ever seen never gets here: terminate answers it without a sweep.)
      if (sid === null) {
        // The command never reached its own session: nothing but script and its fresh child to end.
        for (const c of childrenOf(pid)) signalQuietly(c.pid, 'SIGKILL');
        return killAndReap(exited$, killScript, { reapMs: SCRIPT_REAP_MS, ...on }).pipe(
          map(() => ({ termed: 0, escalated: true, scriptKilled: true, survivors: NO_MEMBERS })),
        );
      }
      const groups = groupsOf(sid);
      const sweeper = procSweeper(sid, scriptStart(), pid);
      return sweepSession(sweeper, {
        knownGroups: [sid],
        groups,
        graceMs: TERMINATE_GRACE_MS,
        pollMs: TERMINATE_POLL_MS,
        boundMs: TERMINATE_TIMEOUT_MS - SCRIPT_EXIT_BACKSTOP_MS - SCRIPT_REAP_MS,
        maxFreezeScans: MAX_FREEZE_SCANS,
        ...on,
      }).pipe(
        scriptBackstop(exited$, killScript, {
          backstopMs: SCRIPT_EXIT_BACKSTOP_MS,
          nudge: sweeper.resumeOutsiders,
          nudgeMs: TERMINATE_POLL_MS,
          // The leader's pid is the session id: it called setsid().
          stuck: () => missedLeaderDeath(pid, scriptStart(), sid) !== undefined,
          stuckChecks: SCRIPT_STUCK_CHECKS,
          reapMs: SCRIPT_REAP_MS,
          ...on,
        }),
        map((r) => ({ ...r, survivors: describeMembers(r.survivors.map((m) => m.pid)) })),
      );
    }).pipe(
      timeout({ first: TERMINATE_TIMEOUT_MS, with: () => giveUp(), ...on }),
      catchError(() => giveUp()),
    );

  let termination: Observable<TerminationReport> | undefined;
  return () => {
    // Script and its child are gone and the program's session was never seen: nothing of it can be named. Not a
    // sweep: neither cached nor taken for "emptied" (a late report of the session may still name it).
    if (termination === undefined && reaped && sessionId() === null) return of(UNNAMEABLE);
    termination ??= sweep$().pipe(
      tap((report) => {
        if (report.survivors.count === 0) onEmptied();
        // Survivors: the next call sweeps again rather than replaying this report.
        else termination = undefined;
      }),
      shareReplay({ bufferSize: 1, refCount: false }),
    );
    return termination;
  };
}
