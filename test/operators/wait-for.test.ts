import { map, type Observable, tap } from 'rxjs';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { MAX_PARTIAL_MATCH_CHARS, UNFINISHED_LINE_SETTLE_MS } from '../../src/limits.js';
import { waitFor, type PtyActivity, type WaitForOptions } from '../../src/operators/wait-for.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { markOf, OutputScanner, type OutputMatch } from '../../src/patterns/output-scanner.js';
import { testScheduler } from '../support/marbles.js';

/**
 * Marble values: a string is a chunk of output (appended to a real OutputBuffer, then an `output` event), the
 * other letters are PTY events. The scan is the real scanner, so matches across chunks and in the unfinished
 * line are checked as the tools see them.
 */
const EVENTS: Record<string, PtyActivity> = {
  x: { kind: 'exit' },
  k: { kind: 'stopping', reason: 'kill' },
  d: { kind: 'stopping', reason: 'owner-deleted' },
  c: { kind: 'stopping', reason: 'close' },
  t: { kind: 'stopping', reason: 'timeout' },
};

function feeding(buffer: OutputBuffer): (source: Observable<string>) => Observable<PtyActivity> {
  return (source) =>
    source.pipe(
      tap((v) => {
        if (!(v in EVENTS)) buffer.append(v);
      }),
      map((v) => EVENTS[v] ?? { kind: 'output' }),
    );
}

function waiting(
  buffer: OutputBuffer,
  pattern: string | undefined,
  options: Omit<WaitForOptions<OutputMatch>, 'scanner'>,
) {
  const scanner =
    pattern === undefined
      ? undefined
      : new OutputScanner(buffer, compileLinearPattern('wait.pattern', pattern), markOf(buffer));
  return waitFor<OutputMatch>({ ...options, ...(scanner ? { scanner } : {}) });
}

describe('waitFor', () => {
  it('ends at the first chunk that completes a matching line, and lets go of every input', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--a--b--c', { a: 'building\n', b: 'ready on :3000\n', c: 'more\n' });
      const abort = hot('  ---------------z');
      const out = source.pipe(feeding(buffer), waiting(buffer, 'ready', { timeoutMs: 100, abort$: abort }));
      expectObservable(out).toBe('-----(m|)', {
        m: { reason: 'match', match: { line: 2, text: 'ready on :3000', unfinished: false } },
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
      expectSubscriptions(abort.subscriptions).toBe('^----!');
    });
  });

  it('with releaseInputs, answers in the same frame and lets go of every input when told, a later match unheard', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--a-b--c', { a: 'ready 1\n', b: 'ready 2\n', c: 'more\n' });
      const abort = hot('  ---------------z');
      const out = source.pipe(
        feeding(buffer),
        waiting(buffer, 'ready', {
          timeoutMs: 100,
          abort$: abort,
          releaseInputs: (letGo) => scheduler.schedule(letGo, 3),
        }),
      );
      expectObservable(out).toBe('--(m|)', {
        m: { reason: 'match', match: { line: 1, text: 'ready 1', unfinished: false } },
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
      expectSubscriptions(abort.subscriptions).toBe('^----!');
    });
  });

  it('matches a line only whole across a chunk boundary', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--a--b', { a: 'Tests: 3 pass', b: 'ed, 1 failed\n' });
      const out = source.pipe(feeding(buffer), waiting(buffer, 'Tests: .* failed', { timeoutMs: 100 }));
      expectObservable(out).toBe('-----(m|)', {
        m: { reason: 'match', match: { line: 1, text: 'Tests: 3 passed, 1 failed', unfinished: false } },
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('matches a prompt in the unfinished line, but not the prompt that was already there when the wait began', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      buffer.append('Python 3\n>>> ');
      // An escape-only chunk leaves the old prompt as it was: no match yet. Then the answer and a new prompt.
      const source = hot('--a---b', { a: '\x1b[?2004h', b: '2\n>>> ' });
      const out = source.pipe(feeding(buffer), waiting(buffer, '^>>> $', { timeoutMs: 100 }));
      expectObservable(out).toBe('------(m|)', {
        m: { reason: 'match', match: { line: 3, text: '>>> ', unfinished: true } },
      });
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('a match and the exit in the same frame: the match wins (output comes before exit)', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--(ax)', { a: 'done\n', x: 'x' });
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'done', { timeoutMs: 100 }))).toBe('--(m|)', {
        m: { reason: 'match', match: { line: 1, text: 'done', unfinished: false } },
      });
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('an exit without a match ends the wait as exit', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--(ax)', { a: 'other\n', x: 'x' });
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'done', { timeoutMs: 100 }))).toBe('--(e|)', {
        e: { reason: 'exit' },
      });
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('a PTY that had already ended (its activity completes) ends the wait at once as exit', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = cold<string>('|');
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'x', { timeoutMs: 100 }))).toBe('(e|)', {
        e: { reason: 'exit' },
      });
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('quiet is counted from the latest chunk: a late chunk restarts it', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      // Quiet 5: chunks at 2 and 6 (4 apart, not quiet yet), then quiet from 6 to 11.
      const source = hot('--a---b------c', { a: 'one\n', b: 'two\n', c: 'late\n' });
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, undefined, { quietMs: 5, timeoutMs: 100 }))).toBe(
        '-----------(q|)',
        {
          q: { reason: 'quiet' },
        },
      );
      expectSubscriptions(source.subscriptions).toBe('^----------!');
    });
  });

  it('with no output at all, quiet never fires: the timeout ends the wait', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot<string>('-----------');
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, undefined, { quietMs: 2, timeoutMs: 8 }))).toBe(
        '--------(t|)',
        { t: { reason: 'timeout' } },
      );
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
  });

  it('a match at the very instant of the timeout wins; one frame later the timeout has won', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const onTime = new OutputBuffer();
      const late = new OutputBuffer();
      const a = hot('-----a', { a: 'ok\n' });
      const b = hot('------a', { a: 'ok\n' });
      expectObservable(a.pipe(feeding(onTime), waiting(onTime, 'ok', { timeoutMs: 5 }))).toBe('-----(m|)', {
        m: { reason: 'match', match: { line: 1, text: 'ok', unfinished: false } },
      });
      expectObservable(b.pipe(feeding(late), waiting(late, 'ok', { timeoutMs: 5 }))).toBe('-----(t|)', {
        t: { reason: 'timeout' },
      });
    });
  });

  it('the tool call aborted (Esc) ends the wait as aborted', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--a------', { a: 'working\n' });
      const abort = hot(' ----z');
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'done', { timeoutMs: 100, abort$: abort }))).toBe(
        '----(a|)',
        { a: { reason: 'aborted' } },
      );
      expectSubscriptions(source.subscriptions).toBe('^---!');
      expectSubscriptions(abort.subscriptions).toBe('^---!');
    });
  });

  it.each([
    ['k', 'killed'],
    ['d', 'owner_deleted'],
    ['c', 'closed'],
  ])('a PTY stopped (%s) ends the wait at the stop, not at the exit: %s', (letter, reason) => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot(`--a-${letter}----x`, { a: 'working\n', [letter]: letter, x: 'x' });
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'done', { timeoutMs: 100 }))).toBe('----(r|)', {
        r: { reason },
      });
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('a PTY ended by its own timeoutSeconds is an exit, when it exits', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--t---x');
      expectObservable(source.pipe(feeding(buffer), waiting(buffer, 'done', { timeoutMs: 100 }))).toBe('------(e|)', {
        e: { reason: 'exit' },
      });
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('a scanner that throws ends the wait with its error and lets go of the activity and the timers', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const activity = hot<PtyActivity>('--o--o', { o: { kind: 'output' } });
      const failing = {
        scan: (): OutputMatch | undefined => {
          throw new RangeError('scan failed');
        },
      };
      const out = activity.pipe(waitFor<OutputMatch>({ scanner: failing, timeoutMs: 100 }));
      expectObservable(out).toBe('--#', undefined, new RangeError('scan failed'));
      expectSubscriptions(activity.subscriptions).toBe('^-!');
    });
  });

  it('ends on a match found apart from the chunks (a screen row), and lets go of that source and the activity', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const activity = hot<PtyActivity>('--o--o---o', { o: { kind: 'output' } });
      const screen = cold<OutputMatch>('------r', { r: { line: 0, text: 'row', unfinished: false } });
      const out = activity.pipe(waitFor<OutputMatch>({ matches$: screen, quietMs: 20, timeoutMs: 100 }));
      expectObservable(out).toBe('------(m|)', {
        m: { reason: 'match', match: { line: 0, text: 'row', unfinished: false } },
      });
      expectSubscriptions(activity.subscriptions).toBe('^-----!');
      expectSubscriptions(screen.subscriptions).toBe('^-----!');
    });
  });

  it('lets go of the matches found apart once another outcome ends the wait', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const activity = hot<PtyActivity>('--o--x', { o: { kind: 'output' }, x: { kind: 'exit' } });
      const screen = cold<OutputMatch>('---------r', { r: { line: 0, text: 'row', unfinished: false } });
      const out = activity.pipe(waitFor<OutputMatch>({ matches$: screen, timeoutMs: 100 }));
      expectObservable(out).toBe('-----(x|)', { x: { reason: 'exit' } });
      expectSubscriptions(screen.subscriptions).toBe('^----!');
    });
  });

  it('unsubscribing before any outcome releases the source, the abort signal and the timers', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = hot('--a-----', { a: 'x\n' });
      const abort = hot(' --------z');
      expectObservable(
        source.pipe(feeding(buffer), waiting(buffer, 'done', { quietMs: 50, timeoutMs: 100, abort$: abort })),
        '^--!',
      ).toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(abort.subscriptions).toBe('^--!');
    });
  });

  it('tests a long unfinished line left untested by a chunk once the output pauses, and lets go of its timer', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      // The first chunk is tested whole (a new long line); the second, small beside the line, is left to the pause;
      // the third comes within the pause and starts it again.
      const long = 'x'.repeat(MAX_PARTIAL_MATCH_CHARS + 1_000);
      const source = hot('--a--b--c', { a: long, b: 'DONE', c: '.' });
      const out = source.pipe(feeding(buffer), waiting(buffer, 'DONE', { timeoutMs: 1_000 }));
      const settled = 8 + UNFINISHED_LINE_SETTLE_MS;
      expectObservable(out).toBe(`${settled}ms (m|)`, {
        m: { reason: 'match', match: { line: 1, text: `${long}DONE.`, unfinished: true } },
      });
      expectSubscriptions(source.subscriptions).toBe(`^ ${settled - 1}ms !`);
    });
  });
});
