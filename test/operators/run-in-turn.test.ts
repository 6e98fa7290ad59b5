import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import { EMPTY, type Observable } from 'rxjs';
import { runInTurn } from '../../src/operators/run-in-turn.js';
import { testScheduler } from '../support/marbles.js';

describe('runInTurn', () => {
  it('runs each value in turn, one run at a time, with what waits in order', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-bc-------d---');
      // Each run takes 4 frames and emits the value it ran for at its end.
      const runs: ColdObservable<string>[] = [];
      const work = (value: string) => {
        const run = cold('----(r|)', { r: value });
        runs.push(run);
        return run;
      };
      expectObservable(source.pipe(runInTurn(work, 8))).toBe('-----a---b---c---d', {
        a: 'a',
        b: 'b',
        c: 'c',
        d: 'd',
      });
      expectSubscriptions(source.subscriptions).toBe('^');
      scheduler.flush();
      // Each run starts as the one before it ends, d's too, though it came while none waited.
      const marbles = ['-^---!', '-----^---!', '---------^---!', '-------------^---!'];
      expect(runs).toHaveLength(marbles.length);
      for (const [k, run] of runs.entries()) expectSubscriptions(run.subscriptions).toBe(marbles[k] as string);
    });
  });

  it('never runs two at once: each run starts as the one before it ends', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, cold, expectSubscriptions }) => {
      const source = hot('-abc');
      const runs: ColdObservable<string>[] = [];
      source
        .pipe(runInTurn((v: string) => runs[runs.push(cold('--(r|)', { r: v })) - 1] as ColdObservable<string>, 8))
        .subscribe();
      scheduler.flush();
      expect(runs).toHaveLength(3);
      expectSubscriptions((runs[0] as ColdObservable<string>).subscriptions).toBe('-^-!');
      expectSubscriptions((runs[1] as ColdObservable<string>).subscriptions).toBe('---^-!');
      expectSubscriptions((runs[2] as ColdObservable<string>).subscriptions).toBe('-----^-!');
    });
  });

  it('keeps at most maxWaiting values waiting: the newest takes the place of the newest waiting, never lost', () => {
    testScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('-abcde--------------');
      const work = (value: string) => cold('----(r|)', { r: value });
      // a runs; b waits, c waits; d replaces c, e replaces d: b and e run after a.
      expectObservable(source.pipe(runInTurn(work, 2))).toBe('-----a---b---e', { a: 'a', b: 'b', e: 'e' });
    });
  });

  it('completes once the source has and the runs that waited are over', () => {
    testScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('-ab|');
      expectObservable(source.pipe(runInTurn((v: string) => cold('--(r|)', { r: v }), 8))).toBe('---a-(b|)', {
        a: 'a',
        b: 'b',
      });
    });
  });

  it('passes an error of a run through, and lets go of the source and the run', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a---');
      const run = cold('--#');
      expectObservable(source.pipe(runInTurn(() => run, 8))).toBe('---#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
  });

  it('passes an error of the source through, and lets go of the run under way', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-#');
      const run = cold('-----r');
      expectObservable(source.pipe(runInTurn(() => run, 8))).toBe('---#');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
  });

  it('unsubscribing ends the run under way and drops those waiting', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab------');
      const run = cold('----r');
      expectObservable(source.pipe(runInTurn(() => run, 8)), '^--!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(run.subscriptions).toBe('-^-!');
    });
  });

  it('a run that ends at once leaves room for the next value at once; a bound below 1 is refused', () => {
    testScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('-abc-');
      expectObservable(source.pipe(runInTurn((v: string) => cold('(r|)', { r: v }), 1))).toBe('-abc-', {
        a: 'a',
        b: 'b',
        c: 'c',
      });
    });
    expect(() => runInTurn(() => cold0(), 0)).toThrow(/maxWaiting must be >= 1, got 0/);
  });
});

function cold0(): Observable<never> {
  return EMPTY;
}
