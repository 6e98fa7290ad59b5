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

  it('kills script at the backstop and says so', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const exited = cold('-');
      const kills: number[] = [];
      const out = of({ termed: 2 }).pipe(
        scriptBackstop(exited, () => kills.push(scheduler.now()), {
          backstopMs: 10,
          nudge: () => undefined,
          nudgeMs: 3,
          scheduler,
        }),
      );
      expectObservable(out).toBe('10ms (r|)', { r: { termed: 2, scriptKilled: true } });
      expectSubscriptions(exited.subscriptions).toBe('^ 9ms !');
      scheduler.flush();
      expect(kills).toEqual([10]);
    });
  });
});
