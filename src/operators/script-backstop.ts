import {
  first,
  ignoreElements,
  map,
  merge,
  type Observable,
  of,
  type OperatorFunction,
  type SchedulerLike,
  switchMap,
  take,
  tap,
  timeout,
  timer,
} from 'rxjs';

export interface BackstopOptions {
  readonly backstopMs: number;
  /**
   * Called at once and every `nudgeMs` while waiting: wakes a `script` that stopped itself (it does when its child,
   * the session leader, is stopped by a freeze, and a stopped script never exits).
   */
  readonly nudge: () => void;
  readonly nudgeMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * After a sweep, `script` exits by itself once its session is empty (with 128+n); this waits for that for at most
 * `backstopMs` and then kills `script` (a stuck one would hold the PTY and its master open). Adds to the report
 * whether it had to.
 *
 * @example
 * sweepSession(sweeper, options).pipe(scriptBackstop(exited$, () => kill(scriptPid, 'SIGKILL'), { backstopMs: 1_000, nudge, nudgeMs: 25 }))
 */
export function scriptBackstop<R extends object>(
  exited$: Observable<unknown>,
  killScript: () => void,
  options: BackstopOptions,
): OperatorFunction<R, R & { readonly scriptKilled: boolean }> {
  const { backstopMs, nudge, nudgeMs, scheduler } = options;
  return (source) =>
    source.pipe(
      switchMap((report) =>
        merge(timer(0, nudgeMs, scheduler).pipe(tap(nudge), ignoreElements()), exited$.pipe(first())).pipe(
          take(1),
          map(() => ({ ...report, scriptKilled: false })),
          timeout({
            first: backstopMs,
            with: () => {
              killScript();
              return of({ ...report, scriptKilled: true });
            },
            ...(scheduler ? { scheduler } : {}),
          }),
        ),
      ),
    );
}
