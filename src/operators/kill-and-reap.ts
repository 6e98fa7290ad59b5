import { defer, first, map, type Observable, of, type SchedulerLike, timeout } from 'rxjs';

export interface KillAndReapOptions {
  /** How long to wait for the reap after the kill; past it the caller hears `reaped: false`. */
  readonly reapMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * Kills (`kill`, a SIGKILL) and then waits until `reaped$` says the process is gone, for at most `reapMs`.
 * A signal is delivered asynchronously: a killed process stays a live child until the kernel has run its exit and
 * Node has reaped it. A termination that reported as soon as it had signalled let its caller (close, a kill, an
 * owner deleted) return while `script` was still alive; under load that was seen as a leftover child.
 *
 * @example
 * killAndReap(exited$, () => process.kill(pid, 'SIGKILL'), { reapMs: 1_000 }) // emits { reaped: true } once, then completes
 */
export function killAndReap(
  reaped$: Observable<unknown>,
  kill: () => void,
  options: KillAndReapOptions,
): Observable<{ readonly reaped: boolean }> {
  const { reapMs, scheduler } = options;
  return defer(() => {
    kill();
    return reaped$.pipe(
      first(),
      map(() => ({ reaped: true })),
      timeout({ first: reapMs, with: () => of({ reaped: false }), ...(scheduler ? { scheduler } : {}) }),
    );
  });
}
