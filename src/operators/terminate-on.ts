import { defer, type MonoTypeOperatorFunction, type Observable, type SchedulerLike, switchMap, take, takeUntil, tap, timer } from 'rxjs';

/**
 * Lets a process stream end the polite way: when `stop$` first emits, `terminate(reason)` is started
 * (signals sent; the stream itself goes on, so the exit status and the last output still arrive).
 * Should the stream not end within `deadlineMs` after that, it is unsubscribed, which makes its own
 * teardown kill what is left. Only the first stop counts: the reason is first-writer-wins.
 *
 * @example
 * events$.pipe(terminateOn(merge(kill$, timeout$), (r) => handle.terminate(r), 12_000))
 */
export function terminateOn<T, R>(
  stop$: Observable<R>,
  terminate: (reason: R) => void,
  deadlineMs: number,
  scheduler?: SchedulerLike,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    defer(() =>
      source.pipe(
        takeUntil(
          stop$.pipe(
            take(1),
            tap(terminate),
            switchMap(() => timer(deadlineMs, scheduler)),
          ),
        ),
      ),
    );
}
