import { Observable } from 'rxjs';

/**
 * A host's AsyncIterable of events as an Observable. Subscribing opens one iterator and pulls it one value at a
 * time; unsubscribing calls the iterator's `return()` at once, so an iteration blocked in `next()` (a host
 * stream that only ends when asked) is released instead of being left pending after the plugin closed.
 *
 * Unlike RxJS `from(asyncIterable)`, whose teardown only takes effect when the next value arrives, this never
 * leaves a `next()` outstanding past unsubscribe: the iterator is told to finish, and whatever its pending
 * `next()` settles with afterwards is ignored.
 *
 * @example
 * fromAsyncIterable(ctx.event.subscribe()).pipe(map(sessionDeletedID), filter(isDefined))
 */
export function fromAsyncIterable<T>(iterable: AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const iterator = iterable[Symbol.asyncIterator]();
    // Set once the iteration is over: ended by the source (done / error) or by our unsubscribe.
    let finished = false;

    const pull = (): void => {
      iterator.next().then(
        (result) => {
          if (finished) return;
          if (result.done) {
            finished = true;
            subscriber.complete();
            return;
          }
          subscriber.next(result.value);
          // A synchronous unsubscribe inside next() sets `finished`; pull only while still wanted.
          if (!finished) pull();
        },
        (err: unknown) => {
          if (finished) return;
          finished = true;
          subscriber.error(err);
        },
      );
    };
    pull();

    return () => {
      // An iterator that ended by itself holds nothing more; one we stop must be told, or its next() dangles.
      if (finished) return;
      finished = true;
      try {
        Promise.resolve(iterator.return?.()).catch(() => undefined);
      } catch {
        // A host iterator whose return() throws has nothing left for us to release.
      }
    };
  });
}
