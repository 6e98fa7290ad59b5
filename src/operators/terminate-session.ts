import { defer, filter, map, Observable, of, SchedulerLike, take, timeout, timer } from 'rxjs';

/** The OS side of termination, injectable so the escalation rules are marble-tested in virtual time. */
export interface SessionSignaller {
  /** pids of the live processes still in the PTY's session. */
  members(): readonly number[];
  /** Sends a signal; a process that is already gone is not an error. */
  signal(pid: number, signal: 'SIGTERM' | 'SIGCONT' | 'SIGKILL'): void;
}

export interface TerminateOptions {
  readonly graceMs: number;
  readonly pollMs: number;
  readonly scheduler?: SchedulerLike;
}

export interface SessionTerminated {
  /** Processes that got TERM at the start. */
  readonly termed: number;
  /** True when the grace period ran out and KILL had to be sent. */
  readonly escalated: boolean;
}

/**
 * Ends every process of a PTY's session: TERM then CONT to each (a stopped job must wake to see TERM),
 * re-scan every `pollMs`; when `graceMs` passes with anything left, KILL whatever is there, re-scanning
 * until the session is empty (a forker keeps making new members). Emits once and completes.
 *
 * `kill(-sid)` alone is not enough: it misses members that moved to another process group.
 *
 * @example
 * terminateSession(signaller, { graceMs: 2000, pollMs: 25 }).subscribe(r => log(r.escalated));
 */
export function terminateSession(signaller: SessionSignaller, options: TerminateOptions): Observable<SessionTerminated> {
  const { graceMs, pollMs, scheduler } = options;
  return defer(() => {
    const initial = signaller.members();
    if (initial.length === 0) return of({ termed: 0, escalated: false });
    for (const pid of initial) {
      signaller.signal(pid, 'SIGTERM');
      signaller.signal(pid, 'SIGCONT');
    }
    const killSweep$ = timer(0, pollMs, scheduler).pipe(
      map(() => {
        const left = signaller.members();
        for (const pid of left) signaller.signal(pid, 'SIGKILL');
        return left.length;
      }),
      filter((left) => left === 0),
      take(1),
      map(() => ({ termed: initial.length, escalated: true })),
    );
    return timer(pollMs, pollMs, scheduler).pipe(
      filter(() => signaller.members().length === 0),
      take(1),
      map(() => ({ termed: initial.length, escalated: false })),
      timeout({ first: graceMs, with: () => killSweep$, ...(scheduler ? { scheduler } : {}) }),
    );
  });
}
