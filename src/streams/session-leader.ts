import { concatWith, EMPTY, NEVER, type Observable, race, type SchedulerLike } from 'rxjs';
import { SESSION_LEADER_FULL_SCAN_MS, SESSION_LEADER_LOOKUP_MS, SESSION_LEADER_POLL_MS } from '../limits.js';
import { leaderLookup$, procLeaderProbe, reportedLeader$ } from './session-members.js';

/**
 * A PTY's session leader, the terminal session's id: script forks, the child calls setsid() and execs the wrapper,
 * which reports its pid on the argv channel (when there is one); /proc is polled too, for a report that never
 * comes. Emits the sid, or null once the lookup's deadline passed first, then completes.
 */
export function sessionLeader$(
  argvChannel: NodeJS.ReadableStream | undefined,
  scriptPid: number,
  scheduler?: SchedulerLike,
): Observable<number | null> {
  // A channel that ends without a report must not win the race: only a value may.
  const reported$ = (argvChannel ? reportedLeader$(argvChannel, scriptPid) : EMPTY).pipe(concatWith(NEVER));
  const polled$ = leaderLookup$(procLeaderProbe(scriptPid), {
    pollMs: SESSION_LEADER_POLL_MS,
    fullScanMs: SESSION_LEADER_FULL_SCAN_MS,
    deadlineMs: SESSION_LEADER_LOOKUP_MS,
    ...(scheduler ? { scheduler } : {}),
  });
  return race(reported$, polled$);
}
