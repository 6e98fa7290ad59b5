import { Observable, type OperatorFunction, Subscription } from 'rxjs';

/**
 * For each source value, runs `work` (a screen read, say) one run at a time: values that come while a run is under
 * way are folded into a single run after it, since a run looks at the latest state and so covers them all. At most
 * one run is under way and at most one waits, however fast the source goes. Emits what the runs emit; completes once
 * the source has and no run is left.
 *
 * @example
 * output$.pipe(runLatest(() => from(screen.snapshot())))
 */
export function runLatest<T, R>(work: () => Observable<R>): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let running = false;
      let pending = false;
      let sourceDone = false;
      const runs = new Subscription();
      const start = (): void => {
        running = true;
        pending = false;
        runs.add(
          work().subscribe({
            next: (value) => subscriber.next(value),
            error: (err) => subscriber.error(err),
            complete: () => {
              running = false;
              if (pending) start();
              else if (sourceDone) subscriber.complete();
            },
          }),
        );
      };
      const values = source.subscribe({
        next: () => {
          if (running) pending = true;
          else start();
        },
        error: (err) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          if (!running) subscriber.complete();
        },
      });
      return () => {
        values.unsubscribe();
        runs.unsubscribe();
      };
    });
}
