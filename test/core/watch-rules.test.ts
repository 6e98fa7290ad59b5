import { Subject } from 'rxjs';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import type { PtySession } from '../../src/core/pty-session.js';
import { watchHits$, type WatchHit } from '../../src/core/watch-rules.js';
import type { Coalesced } from '../../src/operators/coalesce-matches.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';

/** Appends `chunk` as the ingest path does (bytes too, so plain ASCII takes the native scan), then says so. */
function feed(buffer: OutputBuffer, activity: Subject<{ kind: 'output' }>, chunk: string): void {
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
    const activity = new Subject<{ kind: 'output' }>();
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
});
