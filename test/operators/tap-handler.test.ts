import { take } from 'rxjs';
import { type EventHandler, tapHandler } from '../../src/operators/tap-handler.js';
import { testScheduler } from '../support/marbles.js';

/** Records what it was handed and when, as the marbles' frame; throws on `boom`. */
class Recorder implements EventHandler<string> {
  readonly seen: string[] = [];
  onEvent(event: string): void {
    if (event === 'boom') throw new Error('handler failed');
    this.seen.push(event);
  }
}

describe('tapHandler', () => {
  it('hands the handler every value, then passes it on unchanged, and completes with the source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const handler = new Recorder();
      const source = cold('-a-b-c|');
      expectObservable(source.pipe(tapHandler(handler))).toBe('-a-b-c|');
      expectSubscriptions(source.subscriptions).toBe('^-----!');
      flush();
      expect(handler.seen).toEqual(['a', 'b', 'c']);
    });
  });

  it('the handler sees a value before anything downstream does', () => {
    const order: string[] = [];
    const handler: EventHandler<string> = { onEvent: (event) => void order.push(`handler ${event}`) };
    testScheduler().run(({ cold, flush }) => {
      cold('-a-b|')
        .pipe(tapHandler(handler))
        .subscribe((value) => order.push(`downstream ${value}`));
      flush();
    });
    expect(order).toEqual(['handler a', 'downstream a', 'handler b', 'downstream b']);
  });

  it('a handler that throws ends the stream with its error and lets go of the source; the value is not passed on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const handler = new Recorder();
      const source = cold('-a-x-c|', { a: 'a', x: 'boom', c: 'c' });
      expectObservable(source.pipe(tapHandler(handler))).toBe('-a-#', { a: 'a' }, new Error('handler failed'));
      expectSubscriptions(source.subscriptions).toBe('^--!');
      flush();
      expect(handler.seen).toEqual(['a']);
    });
  });

  it("passes the source's error through", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-#', undefined, new Error('source failed'));
      expectObservable(source.pipe(tapHandler(new Recorder()))).toBe('-a-#', undefined, new Error('source failed'));
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('lets go of the source when downstream unsubscribes', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions, flush }) => {
      const handler = new Recorder();
      const source = hot('-a-b-c-d');
      expectObservable(source.pipe(tapHandler(handler), take(2))).toBe('-a-(b|)');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      flush();
      expect(handler.seen).toEqual(['a', 'b']);
    });
  });
});
