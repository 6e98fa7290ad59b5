import type { SchedulerLike } from 'rxjs';
import { quietAfter } from '../../src/operators/quiet-after.js';
import { testScheduler } from '../support/marbles.js';

describe('quietAfter', () => {
  it('emits once quietMs pass after the latest value; a value within the spell starts it again', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      // Quiet 5: values at 1, 3 and 6 (each within 5 of the one before), quiet at 11; again 5 after the one at 14.
      const source = hot('-a-b--c-------d--------');
      expectObservable(source.pipe(quietAfter(5, scheduler))).toBe('-----------q-------q---', { q: undefined });
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('never emits before the first value', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      expectObservable(hot('----------------').pipe(quietAfter(3, scheduler))).toBe('');
    });
  });

  it('a flood arms one timer at a time, not one per value', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const delays: number[] = [];
      const counting: SchedulerLike = {
        now: () => scheduler.now(),
        schedule: ((work: () => void, delay?: number) => {
          delays.push(delay ?? 0);
          return scheduler.schedule(work, delay);
        }) as SchedulerLike['schedule'],
      };
      // 20 values 1 apart (frames 1–20), then quiet: 8 after the last one.
      const source = hot(`-${'a'.repeat(20)}----------`);
      expectObservable(source.pipe(quietAfter(8, counting))).toBe(`${'-'.repeat(28)}q--`, { q: undefined });
      scheduler.flush();
      // Armed at the first value and re-armed only when it fired before the spell ended: 4 timers, not 20.
      expect(delays.length).toBeLessThanOrEqual(4);
      expect(delays[0]).toBe(8);
    });
  });

  it('completes with the source, dropping a spell still running, and lets go of its timer', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-|');
      expectObservable(source.pipe(quietAfter(5, scheduler))).toBe('---|');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('passes an error through; unsubscribing lets go of the source and the timer', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const failing = hot('-a-#');
      expectObservable(failing.pipe(quietAfter(5, scheduler))).toBe('---#');
      expectSubscriptions(failing.subscriptions).toBe('^--!');
      const endless = hot('-a------');
      expectObservable(endless.pipe(quietAfter(5, scheduler)), '^--!').toBe('');
      expectSubscriptions(endless.subscriptions).toBe('^--!');
    });
  });
});
