import { Observable, type Subscriber, type TeardownLogic } from 'rxjs';

/**
 * What a PTY's activity needs of a Subject (next, complete, `observed`, an Observable to subscribe to), for a stream
 * every chunk passes through. rxjs's `Subject.next` makes a closure and an iterator per call; JavaScriptCore (OpenCode's
 * Bun) drops the compiled code of a closure none of which is alive, so after every pause in the output that closure
 * was compiled again (see tapHandler). Here `next` is a loop over a kept array.
 *
 * As a Subject: each value goes to the subscribers there when it is emitted (one that unsubscribes meanwhile still
 * gets it, as with rxjs's snapshot); a subscriber that comes after `complete` is completed at once; nothing is
 * emitted after `complete`.
 */
export class Multicast<T> {
  private readonly subscribers = new Set<Subscriber<T>>();
  /** The subscribers as an array, kept until one comes or goes. */
  private current: Subscriber<T>[] | undefined;
  private stopped = false;
  readonly observable: Observable<T> = new Observable<T>((subscriber) => this.add(subscriber));

  /** Whether anyone listens. */
  get observed(): boolean {
    return this.subscribers.size > 0;
  }

  next(value: T): void {
    if (this.stopped) return;
    this.current ??= Array.from(this.subscribers);
    const current = this.current;
    for (let i = 0; i < current.length; i++) (current[i] as Subscriber<T>).next(value);
  }

  complete(): void {
    if (this.stopped) return;
    this.stopped = true;
    const current = Array.from(this.subscribers);
    this.subscribers.clear();
    this.current = undefined;
    for (const subscriber of current) subscriber.complete();
  }

  private add(subscriber: Subscriber<T>): TeardownLogic {
    if (this.stopped) {
      subscriber.complete();
      return undefined;
    }
    this.subscribers.add(subscriber);
    this.current = undefined;
    return () => {
      if (this.subscribers.delete(subscriber)) this.current = undefined;
    };
  }
}
