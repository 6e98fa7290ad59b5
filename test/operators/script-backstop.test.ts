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
          stuck: () => false,
          stuckChecks: 2,
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

  it.each([
    // Exits only once killed: the report follows the reap, not the kill.
    { case: 'reaped 2 ms after the kill', exited: '------------x', report: '12ms (r|)', second: '10ms ^-!' },
    // Never reaped: the report comes at the reap bound.
    { case: 'never reaped', exited: '-', report: '15ms (r|)', second: '10ms ^ 4ms !' },
  ])('kills script at the backstop, waits for the reap, and says so ($case)', ({ exited, report, second }) => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const exited$ = hot(exited);
      const kills: number[] = [];
      const out = of({ termed: 2 }).pipe(
        scriptBackstop(exited$, () => kills.push(scheduler.now()), {
          backstopMs: 10,
          nudge: () => undefined,
          nudgeMs: 3,
          stuck: () => false,
          stuckChecks: 2,
          reapMs: 5,
          scheduler,
        }),
      );
      expectObservable(out).toBe(report, { r: { termed: 2, scriptKilled: true } });
      expectSubscriptions(exited$.subscriptions).toBe(['^ 9ms !', second]);
      scheduler.flush();
      expect(kills).toEqual([10]);
    });
  });

  it.each([
    // Asked at 0, 2, 4, 6, 8: the second "stuck" in a row (at 8) kills; the reap follows 1 ms later.
    {
      case: 'two in a row',
      answers: [false, true, false, true, true],
      kill: 8,
      exited: '---------x',
      report: '9ms (r|)',
    },
    // Never twice in a row: the backstop kills.
    {
      case: 'never twice in a row',
      answers: [true, false, true, false, true, false],
      kill: 10,
      exited: '-----------x',
      report: '11ms (r|)',
    },
  ])(
    'kills script once it is known stuck ($case), without waiting for the backstop',
    ({ answers, kill, exited, report }) => {
      const scheduler = testScheduler();
      scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const exited$ = hot(exited);
        const kills: number[] = [];
        const asked: number[] = [];
        const out = of({ termed: 1 }).pipe(
          scriptBackstop(exited$, () => kills.push(scheduler.now()), {
            backstopMs: 10,
            nudge: () => undefined,
            nudgeMs: 2,
            stuck: () => answers[asked.push(scheduler.now()) - 1] ?? false,
            stuckChecks: 2,
            reapMs: 5,
            scheduler,
          }),
        );
        expectObservable(out).toBe(report, { r: { termed: 1, scriptKilled: true } });
        expectSubscriptions(exited$.subscriptions).toBe([`^ ${kill - 1}ms !`, `${kill}ms ^!`]);
        scheduler.flush();
        expect(kills).toEqual([kill]);
        // No more checks once script is killed.
        expect(asked.at(-1)).toBeLessThanOrEqual(kill);
      });
    },
  );
});
