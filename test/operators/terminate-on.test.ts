import { testScheduler } from '../support/marbles.js';
import { terminateOn } from '../../src/operators/terminate-on.js';

describe('terminateOn', () => {
  it('starts termination at the first stop and lets the source run to its exit', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('a--b------x|');
      const stop = hot('  ----k--t----');
      const reasons: Array<[number, string]> = [];
      const out = source.pipe(terminateOn(stop, (r) => reasons.push([scheduler.now(), r]), 100));
      expectObservable(out).toBe('a--b------x|');
      expectSubscriptions(source.subscriptions).toBe('^----------!');
      expectSubscriptions(stop.subscriptions).toBe('^---!');
      scheduler.flush();
      // First writer wins: the later 't' is never seen.
      expect(reasons).toEqual([[4, 'k']]);
    });
  });

  it('cuts the source when it has not ended within the deadline after the stop', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c-d-e-f-g-h-i');
      const stop = hot('  --k');
      const out = source.pipe(terminateOn(stop, () => undefined, 5));
      expectObservable(out).toBe('a-b-c-d|');
      expectSubscriptions(source.subscriptions).toBe('^------!');
    });
  });

  it('never stops a source that ends on its own, and lets go of the stop signal then', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('a-x|');
      const stop = hot('  ------k');
      let called = false;
      expectObservable(source.pipe(terminateOn(stop, () => (called = true), 5))).toBe('a-x|');
      expectSubscriptions(stop.subscriptions).toBe('^--!');
      scheduler.flush();
      expect(called).toBe(false);
    });
  });

  it('passes a source error through and unsubscribes the stop signal', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('a-#');
      const stop = hot('  -----k');
      expectObservable(source.pipe(terminateOn(stop, () => undefined, 5))).toBe('a-#');
      expectSubscriptions(stop.subscriptions).toBe('^-!');
    });
  });

  it('releases both inputs when the consumer unsubscribes', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c-d');
      const stop = hot('  -------k');
      expectObservable(source.pipe(terminateOn(stop, () => undefined, 5)), '^--!').toBe('a-b');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(stop.subscriptions).toBe('^--!');
    });
  });
});
