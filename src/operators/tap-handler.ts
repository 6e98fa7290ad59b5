import { type MonoTypeOperatorFunction, Subscriber } from 'rxjs';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import { ChunkSubscriber, throughSubscriber } from './chunk-subscriber.js';

/** What `tapHandler` calls with every value: an object's method, never a closure made for the subscription. */
export interface EventHandler<T> {
  onEvent(event: T): void;
}

/**
 * `tap((event) => handler.onEvent(event))`, with no function made per subscription: what a PTY's every chunk passes
 * through. JavaScriptCore (OpenCode's Bun) drops a function's compiled code once no closure of it is alive, so the
 * closures that rxjs operators make for each subscription were compiled again for every new PTY, up to the top tier
 * and with the buffer's code inlined into them, on the JIT thread, while the PTY's first megabytes ran in the slow tiers
 * (docs/HOSTS.md). A class's method, like `Subscriber.next` and `onEvent` here, keeps its code for the life of the host.
 *
 * As `tap`: the handler sees each value before the values after it pass on; a handler that throws ends the stream
 * with that error (the source is unsubscribed); errors and completion pass through.
 */
export function tapHandler<T>(handler: EventHandler<T>): MonoTypeOperatorFunction<T> {
  return throughSubscriber<T, T>((destination) => new HandlerSubscriber(destination, handler));
}

class HandlerSubscriber<T> extends ChunkSubscriber<T, T> {
  constructor(
    destination: Subscriber<T>,
    private readonly handler: EventHandler<T>,
  ) {
    super(destination);
  }

  protected onValue(value: T): void {
    this.handler.onEvent(value);
    this.destination.next(value);
  }
}

/** What a kept HandlerSubscriber would hand values to: nothing (it is never subscribed). */
const NO_HANDLER: EventHandler<unknown> = { onEvent: () => undefined };

/**
 * A HandlerSubscriber made anew whenever a session's pipeline ends (PtySession.settle, see ShapeKeeper): each chunk of
 * a PTY passes through two, the buffer's and the session's, and none is alive between two PTYs.
 */
export const handlerSubscriberShapes = new ShapeKeeper(
  () => new HandlerSubscriber<unknown>(new Subscriber<unknown>(), NO_HANDLER),
);
