import fc from 'fast-check';
import { AppendedRuns } from '../../src/buffer/appended-runs.js';
import { ByteRing, type RingSpan } from '../../src/buffer/byte-ring.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

/** A ring and runs over it; `span` writes text into the ring as plain output would be. */
function setup() {
  const ring = new ByteRing(1_024);
  const runs = new AppendedRuns(ring);
  const span = (text: string): RingSpan => {
    const written = ring.write(bytes(text), runs.oldestSpanOr(ring.end));
    if (written === undefined) throw new Error('the ring refused a write');
    return written;
  };
  return { ring, runs, span };
}

describe('AppendedRuns', () => {
  it('reads back strings, spans and blanks in the order they were appended, whole and by their tail', () => {
    const { runs, span } = setup();
    runs.append('abc');
    runs.appendSpan(span('DEFG'));
    runs.pad(2);
    runs.append('hi');
    expect(runs.text()).toBe('abcDEFG  hi');
    expect(runs.tail(6)).toBe('FG  hi');
    expect(runs.tail(100)).toBe('abcDEFG  hi');
    expect([...'abcDEFG  hi'].map((_, i) => String.fromCharCode(runs.unitAt(i))).join('')).toBe('abcDEFG  hi');
    expect(runs.unitAt(11)).toBeNaN();
  });

  it('cuts its head across runs, letting go of the spans it drops, and counts offsets from the first unit kept', () => {
    const { ring, runs, span } = setup();
    const first = span('0123456789');
    runs.appendSpan(first);
    runs.appendSpan(span('abcdefghij'));
    expect(runs.oldestSpanOr(ring.end)).toBe(first.at);
    runs.dropHead(4);
    // Part of the first span is still kept, so it is still held.
    expect(runs.text()).toBe('456789abcdefghij');
    expect(runs.oldestSpanOr(ring.end)).toBe(first.at);
    expect(String.fromCharCode(runs.unitAt(0))).toBe('4');
    runs.dropHead(8);
    expect(runs.text()).toBe('cdefghij');
    expect(runs.oldestSpanOr(ring.end)).toBe(first.at + first.length);
    expect(String.fromCharCode(runs.unitAt(0))).toBe('c');
    expect(runs.tail(3)).toBe('hij');
  });

  it('joins its runs into one string in their place unless one is a span (kept as bytes, not twice)', () => {
    const { runs } = setup();
    runs.append('x'.repeat(2_000));
    runs.append('y'.repeat(2_000));
    runs.dropHead(1_000);
    const joined = runs.joined();
    expect(joined).toBe('x'.repeat(1_000) + 'y'.repeat(2_000));
    expect((runs as unknown as { parts: unknown[] }).parts).toEqual([joined]);
    expect(runs.text()).toBe(joined);

    const withSpan = setup();
    withSpan.runs.append('ab');
    withSpan.runs.appendSpan(withSpan.span('cd'));
    expect(withSpan.runs.joined()).toBe('abcd');
    expect(withSpan.runs.holdsSpans).toBe(true);
    expect((withSpan.runs as unknown as { parts: unknown[] }).parts).toHaveLength(2);
  });

  it('joins short strings into the last short run, and keeps a long one apart', () => {
    const { runs } = setup();
    for (const char of 'typed one at a time') runs.append(char);
    expect((runs as unknown as { parts: unknown[] }).parts).toEqual(['typed one at a time']);
    runs.append('z'.repeat(1_024));
    expect((runs as unknown as { parts: unknown[] }).parts).toHaveLength(2);
  });

  it('says when it may hold a pair or a wide character, and forgets both when cleared', () => {
    const { runs, span } = setup();
    runs.append('plain');
    expect([runs.mayHoldPairs, runs.mayHoldWide]).toEqual([false, false]);
    runs.append('表');
    expect([runs.mayHoldPairs, runs.mayHoldWide]).toEqual([false, true]);
    runs.append('😀');
    expect(runs.mayHoldPairs).toBe(true);
    runs.appendSpan(span('bytes'));
    runs.clear();
    expect([runs.mayHoldPairs, runs.mayHoldWide, runs.holdsSpans, runs.text()]).toEqual([false, false, false, '']);
  });

  it('is one span exactly when it holds one span and nothing of it is cut', () => {
    const { runs, span } = setup();
    const only = span('whole');
    runs.appendSpan(only);
    expect(runs.onlySpan).toEqual(only);
    runs.dropHead(1);
    expect(runs.onlySpan).toBeUndefined();
    runs.clear();
    runs.append('text');
    expect(runs.onlySpan).toBeUndefined();
  });

  it('property: a slice read from the runs is the same slice of the whole text, a cut head counted out', () => {
    const run = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 40 }) }),
      fc.record({
        kind: fc.constant('span' as const),
        text: fc.string({ minLength: 1, maxLength: 40, unit: 'binary-ascii' }),
      }),
      fc.record({ kind: fc.constant('pad' as const), count: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(run, { maxLength: 12 }),
        fc.nat({ max: 60 }),
        fc.array(fc.tuple(fc.nat({ max: 300 }), fc.nat({ max: 300 })), { minLength: 1, maxLength: 6 }),
        (runs, cut, ranges) => {
          const { runs: appended, span } = setup();
          for (const next of runs) {
            if (next.kind === 'text') appended.append(next.text);
            else if (next.kind === 'span') appended.appendSpan(span(next.text));
            else appended.pad(next.count);
          }
          appended.dropHead(Math.min(cut, appended.text().length));
          const whole = appended.text();
          for (const [from, length] of ranges) {
            const start = Math.min(from, whole.length + 1);
            expect(appended.slice(start, start + length)).toBe(whole.slice(start, start + length));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives its ASCII tail as bytes over a ring, and nothing without one', () => {
    const { runs, span } = setup();
    runs.appendSpan(span('0123456789'));
    expect(Buffer.from(runs.tailAscii(4, Buffer.alloc(16)) ?? []).toString('latin1')).toBe('6789');
    const ringless = new AppendedRuns();
    ringless.append('text');
    expect(ringless.tailAscii(2, Buffer.alloc(16))).toBeUndefined();
  });
});
