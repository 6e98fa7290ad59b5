import { of } from 'rxjs';
import { scriptBackstop } from '../../src/operators/script-backstop.js';
import { testScheduler } from '../support/marbles.js';

describe('scriptBackstop', () => {
  it('passes the report on when script exits within the backstop, nudging it meanwhile, and kills nothing', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const exited = cold('----x');
      const kills: number[] = [];
      const nudges: number[] = [];
      const out = of({ termed: 1 }).pipe(
        scriptBackstop(exited, () => kills.push(scheduler.now()), {
          backstopMs: 10,
          nudge: () => nudges.push(scheduler.now()),
          nudgeMs: 2,
          reapMs: 5,
          scheduler,
        }),
      );
      expectObservable(out).toBe('----(r|)', { r: { termed: 1, scriptKilled: false } });
      expectSubscriptions(exited.subscriptions).toBe('^---!');
      scheduler.flush();
      expect(kills).toEqual([]);
      expect(nudges).toEqual([0, 2]);
    });
  });

  it('kills script at the backstop, waits for it to be reaped, and says so', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      // Exits only once killed: the report follows the reap, not the kill.
      const exited = hot('------------x');
      const kills: number[] = [];
      const out = of({ termed: 2 }).pipe(
        scriptBackstop(exited, () => kills.push(scheduler.now()), {
          backstopMs: 10,
          nudge: () => undefined,
          nudgeMs: 3,
          reapMs: 5,
          scheduler,
        }),
      );
      expectObservable(out).toBe('12ms (r|)', { r: { termed: 2, scriptKilled: true } });
      expectSubscriptions(exited.subscriptions).toBe(['^ 9ms !', '10ms ^-!']);
      scheduler.flush();
      expect(kills).toEqual([10]);
    });
  });

  it('reports at the reap bound when a killed script is never reaped', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const exited = cold('-');
      const kills: number[] = [];
      const out = of({ termed: 2 }).pipe(
        scriptBackstop(exited, () => kills.push(scheduler.now()), {
          backstopMs: 10,
          nudge: () => undefined,
          nudgeMs: 3,
          reapMs: 5,
          scheduler,
        }),
      );
      expectObservable(out).toBe('15ms (r|)', { r: { termed: 2, scriptKilled: true } });
      expectSubscriptions(exited.subscriptions).toBe(['^ 9ms !', '10ms ^ 4ms !']);
      scheduler.flush();
      expect(kills).toEqual([10]);
    });
  });
});
