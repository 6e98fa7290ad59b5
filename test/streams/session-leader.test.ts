import { reportFirst$ } from '../../src/streams/session-leader.js';
import { testScheduler } from '../support/marbles.js';

/** The report's marbles (`r` the pid) and the /proc poll's (`p` a pid, `n` null at its deadline). */
const reports = { r: 41 };
const values = { ...reports, p: 42, n: null };

describe('reportFirst$: the wrapper’s pid report, with /proc polled only as its fallback', () => {
  it('takes a report that comes within the grace, and never polls', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('---r|', reports);
      const polled = cold('p|', values);
      expectObservable(reportFirst$(report, polled, 10)).toBe('---(r|)', values);
      expectSubscriptions(report.subscriptions).toBe('^--!');
      expectSubscriptions(polled.subscriptions).toBe([]);
    });
  });

  it('polls at once when the channel ends without a report', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('--|', reports);
      const polled = cold('---p|', values);
      expectObservable(reportFirst$(report, polled, 10)).toBe('-----(p|)', values);
      expectSubscriptions(report.subscriptions).toBe('^-!');
      expectSubscriptions(polled.subscriptions).toBe('--^--!');
    });
  });

  it('polls once the grace has passed without a report, and takes whichever answers first', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('------------r|', reports);
      const polled = cold('-----p|', values);
      expectObservable(reportFirst$(report, polled, 4)).toBe('---------(p|)', values);
      expectSubscriptions(report.subscriptions).toBe('^--------!');
      expectSubscriptions(polled.subscriptions).toBe('----^----!');
    });
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('------r|', reports);
      const polled = cold('-----p|', values);
      expectObservable(reportFirst$(report, polled, 4)).toBe('------(r|)', values);
      expectSubscriptions(report.subscriptions).toBe('^-----!');
      expectSubscriptions(polled.subscriptions).toBe('----^-!');
    });
  });

  it('gives the poll’s null when neither finds the leader', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('-|', reports);
      const polled = cold('------n|', values);
      expectObservable(reportFirst$(report, polled, 10)).toBe('-------(n|)', values);
      expectSubscriptions(polled.subscriptions).toBe('-^-----!');
    });
  });

  it('lets go of both when unsubscribed before either answers', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const report = cold('--------r|', reports);
      const polled = cold('--------p|', values);
      expectObservable(reportFirst$(report, polled, 2), '^----!').toBe('------', values);
      expectSubscriptions(report.subscriptions).toBe('^----!');
      expectSubscriptions(polled.subscriptions).toBe('--^--!');
    });
  });
});
