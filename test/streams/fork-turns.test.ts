import { merge } from 'rxjs';
import { ForkTurns } from '../../src/streams/fork-turns.js';
import { testScheduler } from '../support/marbles.js';

/** A turn of the host's loop is one frame: what the gate schedules for its next turn runs a frame later. */
function framedTurns(scheduler: ReturnType<typeof testScheduler>): ForkTurns {
  return new ForkTurns((turn) => {
    scheduler.schedule(turn, 1);
  });
}

describe('ForkTurns', () => {
  it('starts the first at once and each other in a turn of its own, a turn apart, oldest first', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turns = framedTurns(scheduler);
      const [a, b, c] = [cold('(a|)'), cold('(b|)'), cold('(c|)')];
      const all = merge(turns.inTurn(a), turns.inTurn(b), turns.inTurn(c));
      // Each start emits and ends at once; after one the loop goes round once (a turn with no start) before the next.
      expectObservable(all).toBe('a-b-(c|)');
      expectSubscriptions(a.subscriptions).toBe('(^!)');
      expectSubscriptions(b.subscriptions).toBe('--(^!)');
      expectSubscriptions(c.subscriptions).toBe('----(^!)');
    });
  });

  it('a start given up while it waits never runs, and the next one takes its turn', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turns = framedTurns(scheduler);
      const [a, b, c] = [cold('a--|'), cold('(b|)'), cold('(c|)')];
      expectObservable(turns.inTurn(a)).toBe('a--|');
      expectObservable(turns.inTurn(b), '^!').toBe('');
      expectObservable(turns.inTurn(c)).toBe('--(c|)');
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe('--(^!)');
    });
  });

  it('a lone start after a quiet spell goes at once again; one running is let go when unsubscribed', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turns = framedTurns(scheduler);
      const a = cold('(a|)');
      const later = cold('--d--');
      expectObservable(turns.inTurn(a)).toBe('(a|)');
      // Asked for at frame 5, long after the last start's turn, and let go at frame 9.
      expectObservable(turns.inTurn(later), '-----^---!').toBe('-------d');
      expectSubscriptions(later.subscriptions).toBe('-----^---!');
    });
  });

  it('passes a start that fails on through, and keeps no waiter once all have gone', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const turns = framedTurns(scheduler);
      expectObservable(turns.inTurn(cold('#'))).toBe('#');
      expectObservable(turns.inTurn(cold('#'))).toBe('--#');
      scheduler.schedule(() => expect(turns.queued).toBe(0), 3);
    });
  });
});
