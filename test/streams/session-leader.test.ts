import { reportFirst$ } from '../../src/streams/session-leader.js';
import { testScheduler } from '../support/marbles.js';

/** The report's marbles (`r` the pid) and the /proc poll's (`p` a pid, `n` null at its deadline). */
const reports = { r: 41 };
const values = { ...reports, p: 42, n: null };

interface Race {
  readonly report: string;
  readonly polled: string;
  readonly graceMs: number;
  /** What reportFirst$ gives, and when the caller unsubscribes (if before it completes). */
  readonly gives: string;
  readonly unsubscribed?: string;
  /** When each side is subscribed and let go (`[]`: never subscribed). */
  readonly reportSubscribed: string;
  readonly polledSubscribed: string | string[];
}

function expectRace(race: Race): void {
  testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
    const report = cold(race.report, reports);
    const polled = cold(race.polled, values);
    expectObservable(reportFirst$(report, polled, race.graceMs), race.unsubscribed).toBe(race.gives, values);
    expectSubscriptions(report.subscriptions).toBe(race.reportSubscribed);
    expectSubscriptions(polled.subscriptions).toBe(race.polledSubscribed);
  });
}

describe('reportFirst$: the wrapper’s pid report, with /proc polled only as its fallback', () => {
  it('takes a report that comes within the grace, and never polls', () => {
    expectRace({
      report: '---r|',
      polled: 'p|',
      graceMs: 10,
      gives: '---(r|)',
      reportSubscribed: '^--!',
      polledSubscribed: [],
    });
  });

  it('polls at once when the channel ends without a report', () => {
    expectRace({
      report: '--|',
      polled: '---p|',
      graceMs: 10,
      gives: '-----(p|)',
      reportSubscribed: '^-!',
      polledSubscribed: '--^--!',
    });
  });

  it('polls once the grace has passed without a report, and takes whichever answers first', () => {
    expectRace({
      report: '------------r|',
      polled: '-----p|',
      graceMs: 4,
      gives: '---------(p|)',
      reportSubscribed: '^--------!',
      polledSubscribed: '----^----!',
    });
    expectRace({
      report: '------r|',
      polled: '-----p|',
      graceMs: 4,
      gives: '------(r|)',
      reportSubscribed: '^-----!',
      polledSubscribed: '----^-!',
    });
  });

  it('gives the poll’s null when neither finds the leader', () => {
    expectRace({
      report: '-|',
      polled: '------n|',
      graceMs: 10,
      gives: '-------(n|)',
      reportSubscribed: '^!',
      polledSubscribed: '-^-----!',
    });
  });

  it('lets go of both when unsubscribed before either answers', () => {
    expectRace({
      report: '--------r|',
      polled: '--------p|',
      graceMs: 2,
      gives: '------',
      unsubscribed: '^----!',
      reportSubscribed: '^----!',
      polledSubscribed: '--^--!',
    });
  });
});
