import { first, map, Observable, of, OperatorFunction, SchedulerLike, switchMap, timeout } from 'rxjs';

/**
 * After a sweep, `script` exits by itself once its session is empty (with 128+n); this waits for that for at most
 * `backstopMs` and then kills `script` (a stuck one would hold the PTY and its master open). Adds to the report
 * whether it had to.
 *
 * @example
 * sweepSession(sweeper, options).pipe(scriptBackstop(exited$, () => kill(scriptPid, 'SIGKILL'), 1_000))
 */
export function scriptBackstop<R extends object>(
  exited$: Observable<unknown>,
  killScript: () => void,
  backstopMs: number,
  scheduler?: SchedulerLike,
): OperatorFunction<R, R & { readonly scriptKilled: boolean }> {
  return (source) =>
    source.pipe(
      switchMap((report) =>
        exited$.pipe(
          first(),
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
