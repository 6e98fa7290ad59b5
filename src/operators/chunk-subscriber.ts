import { Observable, type OperatorFunction, Subscriber } from 'rxjs';

/**
 * An operator's work on each value as a method of a Subscriber subclass, for the streams every chunk passes through
 * (why not rxjs's own operators there: see tapHandler). `onValue` runs for each value and emits what it has to on
 * `destination`; if it throws, the stream ends with that error and the source is let go, as in rxjs's operators.
 */
export abstract class ChunkSubscriber<T, R> extends Subscriber<T> {
  constructor(destination: Subscriber<R>) {
    super(destination);
  }

  protected abstract onValue(value: T): void;

  protected override _next(value: T): void {
    try {
      this.onValue(value);
    } catch (err) {
      this.error(err);
    }
  }
}

/** The operator that subscribes its source with `make(destination)`, a ChunkSubscriber (or any Subscriber). */
export function throughSubscriber<T, R>(make: (destination: Subscriber<R>) => Subscriber<T>): OperatorFunction<T, R> {
  return (source) => new Observable<R>((subscriber) => source.subscribe(make(subscriber)));
}
