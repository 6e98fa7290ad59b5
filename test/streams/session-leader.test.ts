import { PassThrough } from 'node:stream';
import { leaderLookup$, reportedLeader$, reportFirst$ } from '../../src/streams/session-leader.js';
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

describe('leaderLookup$', () => {
  it('emits the session id once found, probing near pids between full scans', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const calls: string[] = [];
      const probe = {
        find: (nearOnly: boolean) => {
          calls.push(`${scheduler.now()}:${nearOnly ? 'near' : 'full'}`);
          return scheduler.now() >= 6 ? 77 : null;
        },
      };
      expectObservable(leaderLookup$(probe, { pollMs: 2, fullScanMs: 4, deadlineMs: 100, scheduler })).toBe(
        '6ms (s|)',
        { s: 77 },
      );
      scheduler.flush();
      expect(calls).toEqual(['0:near', '2:near', '4:full', '6:near']);
    });
  });

  it('gives up with null at the deadline', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(
        leaderLookup$({ find: () => null }, { pollMs: 5, fullScanMs: 50, deadlineMs: 20, scheduler }),
      ).toBe('20ms (n|)', { n: null });
    });
  });
});

describe('reportedLeader$', () => {
  const SCRIPT_PID = 500;
  /** Feeds the channel the given chunks and ends it; resolves with what the report stream gave. */
  async function reported(chunks: readonly string[]): Promise<number[]> {
    const channel = new PassThrough();
    const seen: number[] = [];
    const done = new Promise<void>((resolve) =>
      reportedLeader$(channel, SCRIPT_PID).subscribe({ next: (pid) => seen.push(pid), complete: resolve }),
    );
    for (const chunk of chunks) channel.write(chunk);
    channel.end();
    await done;
    return seen;
  }

  it('gives the pid the wrapper wrote, even split across reads', async () => {
    expect(await reported(['4242\n'])).toEqual([4242]);
    expect(await reported(['42', '42', '\n'])).toEqual([4242]);
  });

  it('gives nothing for what is not a pid of another process: text, 0, 1, script’s own pid, an endless line', async () => {
    for (const chunks of [['x1\n'], ['0\n'], ['1\n'], [`${SCRIPT_PID}\n`], ['1'.repeat(40)], ['12.5\n'], ['']]) {
      expect({ chunks, pids: await reported(chunks) }).toEqual({ chunks, pids: [] });
    }
  });

  it('completes without a value when the channel ends before a whole line', async () => {
    expect(await reported(['42'])).toEqual([]);
  });
});
