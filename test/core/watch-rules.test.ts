import { Subject } from 'rxjs';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import type { PtySession } from '../../src/core/pty-session.js';
import { watchHits$, type WatchHit } from '../../src/core/watch-rules.js';
import type { Coalesced } from '../../src/operators/coalesce-matches.js';
import type { PtyActivity } from '../../src/operators/wait-for.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';

/** Appends `chunk` as the ingest path does (bytes too, so plain ASCII takes the native scan), then says so. */
function feed(buffer: OutputBuffer, activity: Subject<PtyActivity>, chunk: string): void {
  buffer.append(chunk, Buffer.from(chunk, 'utf8'));
  activity.next({ kind: 'output' });
}

describe('watchHits$', () => {
  // The second chunk finishes the line the first began, then brings a run: the scan gets two parts, and a hit in
  // the second is numbered from that part's own first line.
  it.each([
    ['the run after the finished line', ['one\ntw', 'o\nthree\nERROR four\nfive\n'], 4, 'ERROR four'],
    ['the finished line itself', ['one\nERR', 'OR two\nthree\n'], 2, 'ERROR two'],
    ['a later chunk, lines dropped before it', ['x\n'.repeat(30), 'y\n'.repeat(30), 'ERROR 61\n'], 61, 'ERROR 61'],
  ])('numbers a hit in %s', (_, chunks, line, text) => {
    const buffer = new OutputBuffer({ maxChars: 40, lineOverheadChars: 0 });
    const activity = new Subject<PtyActivity>();
    const session = { buffer, activity$: activity.asObservable() } as unknown as PtySession;
    const [first, ...rest] = chunks as string[];
    feed(buffer, activity, first as string);
    const hits: Coalesced<WatchHit>[] = [];
    const subscription = watchHits$(session, [compileLinearPattern('watch', 'ERROR')]).subscribe((hit) =>
      hits.push(hit),
    );
    for (const chunk of rest) feed(buffer, activity, chunk);
    subscription.unsubscribe();
    expect(hits).toEqual([{ first: { rule: 0, pattern: 'ERROR', line, text }, more: 0 }]);
  });

  it('reports hits in order, each line once with the first rule that matches it, and ends when the PTY stops', () => {
    const buffer = new OutputBuffer();
    const activity = new Subject<PtyActivity>();
    const session = { buffer, activity$: activity.asObservable() } as unknown as PtySession;
    const rules = [compileLinearPattern('watch', 'FAIL'), compileLinearPattern('watch', 'ERROR|FAIL')];
    const hits: Coalesced<WatchHit>[] = [];
    let completed = false;
    watchHits$(session, rules).subscribe({ next: (hit) => hits.push(hit), complete: () => (completed = true) });
    feed(buffer, activity, 'ok\nERROR a\nFAIL b\n');
    expect(hits).toEqual([{ first: { rule: 1, pattern: 'ERROR|FAIL', line: 2, text: 'ERROR a' }, more: 0 }]);
    activity.next({ kind: 'stopping', reason: 'kill' });
    // The second hit was held for the coalescing interval; the PTY's end drops it (its exit notification follows).
    expect(completed).toBe(true);
    expect(activity.observed).toBe(false);
    feed(buffer, activity, 'ERROR late\n');
    expect(hits).toHaveLength(1);
  });

  it('a rule that throws ends the stream with its error and lets go of the activity', () => {
    const buffer = new OutputBuffer();
    const activity = new Subject<PtyActivity>();
    const session = { buffer, activity$: activity.asObservable() } as unknown as PtySession;
    const failing = {
      ...compileLinearPattern('watch', 'ERROR'),
      matchingLines: () => {
        throw new RangeError('rule failed');
      },
    };
    let error: unknown;
    watchHits$(session, [failing]).subscribe({ error: (err: unknown) => (error = err) });
    feed(buffer, activity, 'ERROR a\n');
    expect(error).toEqual(new RangeError('rule failed'));
    expect(activity.observed).toBe(false);
  });
});
