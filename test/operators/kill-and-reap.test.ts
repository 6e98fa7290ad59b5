import { ReplaySubject } from 'rxjs';
import { killAndReap } from '../../src/operators/kill-and-reap.js';
import { testScheduler } from '../support/marbles.js';

describe('killAndReap', () => {
  it('kills on subscribe and emits once the process is reaped', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const reaped = cold('---x-x');
      const kills: number[] = [];
      expectObservable(killAndReap(reaped, () => kills.push(scheduler.now()), { reapMs: 10, scheduler })).toBe(
        '---(r|)',
        { r: { reaped: true } },
      );
      expectSubscriptions(reaped.subscriptions).toBe('^--!');
      scheduler.flush();
      expect(kills).toEqual([0]);
    });
  });

  it('emits reaped: false at the bound when no reap comes, and lets go of the source', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const reaped = cold('-');
      expectObservable(killAndReap(reaped, () => undefined, { reapMs: 10, scheduler })).toBe('10ms (r|)', {
        r: { reaped: false },
      });
      expectSubscriptions(reaped.subscriptions).toBe('^ 9ms !');
    });
  });

  it('kills nothing until subscribed, and an exit already seen counts at once', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const exited = new ReplaySubject<void>(1);
      exited.next();
      let kills = 0;
      const reap$ = killAndReap(exited, () => kills++, { reapMs: 10, scheduler });
      expect(kills).toBe(0);
      expectObservable(reap$).toBe('(r|)', { r: { reaped: true } });
      scheduler.flush();
      expect(kills).toBe(1);
    });
  });
});
