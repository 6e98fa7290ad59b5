import { coalesceMatches } from '../../src/operators/coalesce-matches.js';
import { testScheduler } from '../support/marbles.js';

describe('coalesceMatches', () => {
  it('passes the first at once, then at most one per interval carrying how many more came', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-bcd------e-----------f');
      expectObservable(source.pipe(coalesceMatches(5, scheduler))).toBe('-a----b-----e-----------f', {
        a: { first: 'a', more: 0 },
        b: { first: 'b', more: 2 },
        e: { first: 'e', more: 0 },
        f: { first: 'f', more: 0 },
      });
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('a lone item after a quiet spell passes at once again', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a-------------b');
      expectObservable(source.pipe(coalesceMatches(3, scheduler))).toBe('-a-------------b', {
        a: { first: 'a', more: 0 },
        b: { first: 'b', more: 0 },
      });
    });
  });

  it('drops what is held when the source completes: nothing after the end', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab-|');
      expectObservable(source.pipe(coalesceMatches(5, scheduler))).toBe('-a--|', { a: { first: 'a', more: 0 } });
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('passes an error through and lets go of the source', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab-#');
      expectObservable(source.pipe(coalesceMatches(5, scheduler))).toBe('-a--#', { a: { first: 'a', more: 0 } });
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('unsubscribing releases the source and the pending window', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-abc-------');
      expectObservable(source.pipe(coalesceMatches(5, scheduler)), '^---!').toBe('-a--', {
        a: { first: 'a', more: 0 },
      });
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });
});
