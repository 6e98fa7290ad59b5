import { tap } from 'rxjs';
import { testScheduler } from '../support/marbles.js';
import { usingDescriptor } from '../../src/operators/using-descriptor.js';

function counter() {
  const state = { opened: 0, closed: 0 };
  const acquire = () => {
    state.opened++;
    return { close: () => state.closed++ };
  };
  return { state, acquire };
}

describe('usingDescriptor', () => {
  it('closes exactly once on normal completion, even when the user closed it early', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { state, acquire } = counter();
      const start = cold('--s--o--x|');
      const out = usingDescriptor(acquire, (_fd, close) => start.pipe(tap((v) => v === 's' && close())));
      expectObservable(out).toBe('--s--o--x|');
      expectSubscriptions(start.subscriptions).toBe('^--------!');
      scheduler.flush();
      expect(state).toEqual({ opened: 1, closed: 1 });
    });
  });

  it('closes exactly once on error', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { state, acquire } = counter();
      const start = cold('--s--#');
      expectObservable(usingDescriptor(acquire, () => start)).toBe('--s--#');
      expectSubscriptions(start.subscriptions).toBe('^----!');
      scheduler.flush();
      expect(state).toEqual({ opened: 1, closed: 1 });
    });
  });

  it('closes exactly once when unsubscribed before the start event', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { state, acquire } = counter();
      const start = cold('-----s--x|');
      expectObservable(
        usingDescriptor(acquire, () => start),
        '^--!',
      ).toBe('');
      expectSubscriptions(start.subscriptions).toBe('^--!');
      scheduler.flush();
      expect(state).toEqual({ opened: 1, closed: 1 });
    });
  });

  it('closes exactly once when unsubscribed during start (after the early close)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { state, acquire } = counter();
      const start = cold('--s----o|');
      const out = usingDescriptor(acquire, (_fd, close) => start.pipe(tap(() => close())));
      expectObservable(out, '^---!').toBe('--s-');
      expectSubscriptions(start.subscriptions).toBe('^---!');
      scheduler.flush();
      expect(state).toEqual({ opened: 1, closed: 1 });
    });
  });

  it('closes when the use function throws, and opens nothing when acquire throws', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const { state, acquire } = counter();
      const boom = new Error('spawn failed');
      expectObservable(
        usingDescriptor(acquire, () => {
          throw boom;
        }),
      ).toBe('#', undefined, boom);
      const failing = usingDescriptor(
        () => {
          throw boom;
        },
        () => {
          throw new Error('never reached');
        },
      );
      expectObservable(failing).toBe('#', undefined, boom);
      scheduler.flush();
      expect(state).toEqual({ opened: 1, closed: 1 });
    });
  });

  it('opens a fresh descriptor per subscription', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const { state, acquire } = counter();
      const out = usingDescriptor(acquire, () => cold('-a|'));
      expectObservable(out).toBe('-a|');
      expectObservable(out).toBe('-a|');
      scheduler.flush();
      expect(state).toEqual({ opened: 2, closed: 2 });
    });
  });
});
