import { Observable, type OperatorFunction, Subscription } from 'rxjs';

/**
 * Runs `work` for each source value in turn, one run at a time (screen reads, say, each up to the output a chunk
 * ended at). At most `maxWaiting` values wait meanwhile: past that the newest takes the place of the newest waiting
 * one, since the latest state is the one that must not be missed. Emits what the runs emit; completes once the source
 * has and no run is left.
 *
 * @example
 * output$.pipe(runInTurn((end) => from(screen.snapshotTo(end)), 8))
 */
export function runInTurn<T, R>(work: (value: T) => Observable<R>, maxWaiting: number): OperatorFunction<T, R> {
  if (!Number.isSafeInteger(maxWaiting) || maxWaiting < 1)
    throw new RangeError(`maxWaiting must be >= 1, got ${maxWaiting}`);
  return (source) =>
    new Observable<R>((subscriber) => {
      let running = false;
      let sourceDone = false;
      const waiting: T[] = [];
      const runs = new Subscription();
      const start = (value: T): void => {
        running = true;
        runs.add(
          work(value).subscribe({
            next: (result) => subscriber.next(result),
            error: (err) => subscriber.error(err),
            complete: () => {
              running = false;
              if (waiting.length > 0) start(waiting.shift() as T);
              else if (sourceDone) subscriber.complete();
            },
          }),
        );
      };
      const values = source.subscribe({
        next: (value) => {
          if (!running) start(value);
          else if (waiting.length < maxWaiting) waiting.push(value);
          else waiting[waiting.length - 1] = value;
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
