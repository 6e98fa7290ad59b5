import {
  asyncScheduler,
  concatWith,
  defer,
  endWith,
  ignoreElements,
  NEVER,
  type Observable,
  race,
  type SchedulerLike,
  share,
  switchMap,
  take,
  timer,
} from 'rxjs';
import {
  LEADER_REPORT_GRACE_MS,
  SESSION_LEADER_FULL_SCAN_MS,
  SESSION_LEADER_LOOKUP_MS,
  SESSION_LEADER_POLL_MS,
} from '../limits.js';
import { leaderLookup$, procLeaderProbe, reportedLeader$ } from './session-members.js';

/**
 * A PTY's session leader, the terminal session's id: script forks, the child calls setsid() and execs the wrapper,
 * which reports its pid on the argv channel (when there is one); /proc is polled for a report that never comes.
 * Emits the sid, or null once the lookup's deadline passed first, then completes.
 */
export function sessionLeader$(
  argvChannel: NodeJS.ReadableStream | undefined,
  scriptPid: number,
  scheduler?: SchedulerLike,
): Observable<number | null> {
  const polled$ = leaderLookup$(procLeaderProbe(scriptPid), {
    pollMs: SESSION_LEADER_POLL_MS,
    fullScanMs: SESSION_LEADER_FULL_SCAN_MS,
    deadlineMs: SESSION_LEADER_LOOKUP_MS,
    ...(scheduler ? { scheduler } : {}),
  });
  if (argvChannel === undefined) return polled$;
  return reportFirst$(reportedLeader$(argvChannel, scriptPid), polled$, LEADER_REPORT_GRACE_MS, scheduler);
}

/**
 * The report's value; `polled$` is its fallback, subscribed only once `report$` completes without a value or
 * `graceMs` pass without one. From then on, whichever of the two gives a value first is taken. Emits one value,
 * then completes; the report is subscribed once.
 */
export function reportFirst$(
  report$: Observable<number>,
  polled$: Observable<number | null>,
  graceMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<number | null> {
  return defer(() => {
    const shared$ = report$.pipe(share());
    // A report that ends empty must not end the race: only a value may.
    const reported$ = shared$.pipe(concatWith(NEVER));
    const fallback$ = race(shared$.pipe(ignoreElements(), endWith(undefined)), timer(graceMs, scheduler)).pipe(
      take(1),
      switchMap(() => polled$),
    );
    return race(reported$, fallback$).pipe(take(1));
  });
}
