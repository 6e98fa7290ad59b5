import { type MonoTypeOperatorFunction, Observable, type Subscription } from 'rxjs';

/**
 * `take(1)`, except that the source is let go when `release` calls what it is handed, not in the same run as the
 * first value: emitted, completed, then released. A wait's answer is what an interactive call waits on, and letting
 * go of a wait's inputs (its PTY's activity, its timer, the call's abort signal, the screen watch) took 0.075 ms of the
 * time between the answer's chunk and the tool result (docs/perf-journal.md, thirtieth session). A value the source
 * sends before it is released goes nowhere. A subscriber that leaves before the first value lets go of the source at
 * once, and `release` that runs what it is handed at once is `take(1)`.
 *
 * @example
 * merge(outcomes$, timeout$).pipe(firstThenRelease((letGo) => setImmediate(letGo)))
 */
export function firstThenRelease<T>(release: (letGo: () => void) => void): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let done = false;
      let upstream: Subscription | undefined;
      /** The first value came while the source was being subscribed: it is released once its subscription exists. */
      let firstDuringSubscribe = false;
      const letGo = () => upstream?.unsubscribe();
      upstream = source.subscribe({
        next: (value) => {
          if (done) return;
          done = true;
          subscriber.next(value);
          subscriber.complete();
          if (upstream === undefined) firstDuringSubscribe = true;
          else release(letGo);
        },
        error: (err: unknown) => {
          if (done) return;
          done = true;
          subscriber.error(err);
        },
        complete: () => {
          if (done) return;
          done = true;
          subscriber.complete();
        },
      });
      if (firstDuringSubscribe) release(letGo);
      return () => {
        if (!done) upstream?.unsubscribe();
      };
    });
}
