import type { Observable } from 'rxjs';
import { runLatest } from '../../src/operators/run-latest.js';
import { testScheduler } from '../support/marbles.js';

describe('runLatest', () => {
  it('runs at once when idle, folds what comes during a run into one run after it, and never runs two at once', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-bcd------e---');
      // Each run takes 4 frames and emits what it found at its end.
      const runs: Observable<string>[] = [];
      const work = () => {
        const run = cold('----(r|)', { r: `run${runs.length + 1}` });
        runs.push(run);
        return run;
      };
      expectObservable(source.pipe(runLatest(work))).toBe('-----x---y------z', {
        x: 'run1',
        y: 'run2',
        z: 'run3',
      });
      expectSubscriptions(source.subscriptions).toBe('^');
      scheduler.flush();
      // b, c and d came during the first run: one run after it, not three.
      expect(runs).toHaveLength(3);
      const [first, second, third] = runs as [
        ReturnType<typeof cold>,
        ReturnType<typeof cold>,
        ReturnType<typeof cold>,
      ];
      expectSubscriptions(first.subscriptions).toBe('-^---!');
      expectSubscriptions(second.subscriptions).toBe('-----^---!');
      expectSubscriptions(third.subscriptions).toBe('------------^---!');
    });
  });

  it('completes once the source has and the last run is over, the run a value asked for included', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-ab|');
      expectObservable(source.pipe(runLatest(() => cold('--(r|)', { r: 1 })))).toBe('---r-(r|)', { r: 1 });
    });
  });

  it('passes an error of the source or of a run through, and lets go of both', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a---');
      const run = cold('--#');
      expectObservable(source.pipe(runLatest(() => run))).toBe('---#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-#');
      const run = cold('-----r');
      expectObservable(source.pipe(runLatest(() => run))).toBe('---#');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
  });

  it('unsubscribing ends the run under way and drops the one waiting', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab------');
      const run = cold('----r');
      expectObservable(source.pipe(runLatest(() => run)), '^--!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
  });

  it('a run that ends at once leaves room for the next value at once', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-abc-');
      expectObservable(source.pipe(runLatest(() => cold('(r|)', { r: 'x' })))).toBe('-xxx-', { x: 'x' });
    });
  });
});
