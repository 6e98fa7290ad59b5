import { defer, finalize, NEVER, of, throwError } from 'rxjs';
import { testScheduler } from '../support/marbles.js';
import { deliverBounded } from '../../src/operators/deliver-bounded.js';

describe('deliverBounded', () => {
  it('emits one outcome per item: delivered, or failed when the host errors', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const items = cold('a-b-c|');
      const out = items.pipe(
        deliverBounded(
          (item: string) =>
            item === 'b' ? throwError(() => new Error('host down')) : scheduler.createColdObservable('--d|'),
          {
            timeoutMs: 100,
            concurrency: 4,
          },
        ),
      );
      expectObservable(out).toBe('--(yx)(z|)', {
        x: { kind: 'delivered', item: 'a' },
        y: { kind: 'failed', item: 'b', error: new Error('host down') },
        z: { kind: 'delivered', item: 'c' },
      });
      expectSubscriptions(items.subscriptions).toBe('^----!');
    });
  });

  it('gives up on a host that never answers after the bound, aborting its signal, without holding up the next item', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const signals: AbortSignal[] = [];
      const items = cold('a-b|');
      const out = items.pipe(
        deliverBounded(
          (item: string, signal) => {
            signals.push(signal);
            return item === 'a' ? NEVER : of('ok');
          },
          { timeoutMs: 50, concurrency: 4, scheduler },
        ),
      );
      expectObservable(out).toBe('--y 47ms (x|)', {
        x: { kind: 'failed', item: 'a', error: expect.objectContaining({ name: 'TimeoutError' }) },
        y: { kind: 'delivered', item: 'b' },
      });
      scheduler.flush();
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    });
  });

  it('aborts the signal of a delivery still under way when the pipeline is unsubscribed, and only that one', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const signals: AbortSignal[] = [];
      const items = cold<'a' | 'b'>('a-b');
      const answers = { a: cold('-d|'), b: cold('------d|') };
      const out = items.pipe(
        deliverBounded(
          (item: 'a' | 'b', signal) => {
            signals.push(signal);
            return answers[item];
          },
          { timeoutMs: 50, concurrency: 4, scheduler },
        ),
      );
      // Closed at frame 5: a was delivered at 1, b (answering at 8) is cut off.
      expectObservable(out, '^----!').toBe('-x', { x: { kind: 'delivered', item: 'a' } });
      expectSubscriptions(answers.a.subscriptions).toBe('^!');
      expectSubscriptions(answers.b.subscriptions).toBe('--^--!');
      scheduler.flush();
      expect(signals.map((s) => s.aborted)).toEqual([false, true]);
      expect(signals[1]?.reason).toEqual(new Error('delivery cancelled: the pipeline was closed'));
    });
  });

  it('bounds deliveries under way by the concurrency; the rest wait their turn', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const items = cold('(abc|)');
      let running = 0;
      let peak = 0;
      const out = items.pipe(
        deliverBounded(
          () =>
            defer(() => {
              running++;
              peak = Math.max(peak, running);
              return cold('----d|').pipe(finalize(() => running--));
            }),
          { timeoutMs: 100, concurrency: 2, scheduler },
        ),
      );
      expectObservable(out).toBe('----(xy)(z|)', {
        x: { kind: 'delivered', item: 'a' },
        y: { kind: 'delivered', item: 'b' },
        z: { kind: 'delivered', item: 'c' },
      });
      scheduler.flush();
      expect(peak).toBe(2);
    });
  });

  it('abandons deliveries in flight when unsubscribed (plugin close)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const items = cold('a');
      const host = cold('------d|');
      const out = items.pipe(deliverBounded(() => host, { timeoutMs: 100, concurrency: 1, scheduler }));
      expectObservable(out, '^--!').toBe('');
      expectSubscriptions(host.subscriptions).toBe('^--!');
    });
  });
});
