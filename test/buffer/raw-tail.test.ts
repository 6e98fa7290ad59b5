import { ByteRing, type RingSpan } from '../../src/buffer/byte-ring.js';
import { RawTail } from '../../src/buffer/raw-tail.js';
import { FRESH_MODES } from '../../src/buffer/terminal-modes.js';
import { PLAIN_PIECE_MAX_BYTES } from '../../src/limits.js';

const written = (ring: ByteRing, text: string): RingSpan =>
  ring.write(Buffer.from(text, 'latin1'), ring.end) as RingSpan;

/** How a span after `first` starts: on which screen, past how much of a cut sequence, with which modes. */
type Start = [alternate: boolean | undefined, carriedEnd: number, modes: typeof FRESH_MODES | undefined];

describe('RawTail joining spans', () => {
  const joins = (second: Start, firstText = 'one\n', secondText = 'two\n') => {
    const ring = new ByteRing(1 << 20);
    const tail = new RawTail(1 << 20, ring);
    tail.append(written(ring, firstText), false, 0, FRESH_MODES);
    tail.append(written(ring, secondText), ...second);
    const found = tail.chunkAt(firstText.length);
    expect(tail.since(0).text).toBe(firstText + secondText);
    return found?.start === 0;
  };

  it('joins a span that continues the newest one and starts as it did', () => {
    expect(joins([false, 0, FRESH_MODES])).toBe(true);
  });

  it('keeps apart a span that starts otherwise: on the other screen, past a cut sequence, or with other modes', () => {
    expect(joins([true, 0, FRESH_MODES])).toBe(false);
    expect(joins([undefined, 0, undefined])).toBe(false);
    expect(joins([false, 2, FRESH_MODES])).toBe(false);
    expect(joins([false, 0, { ...FRESH_MODES, insert: true }])).toBe(false);
  });

  it('keeps apart spans that would pass PLAIN_PIECE_MAX_BYTES together', () => {
    const half = 'x'.repeat(PLAIN_PIECE_MAX_BYTES / 2);
    expect(joins([false, 0, FRESH_MODES], half, half)).toBe(true);
    expect(joins([false, 0, FRESH_MODES], half, `${half}!`)).toBe(false);
  });

  it('keeps a string apart, and a span after one', () => {
    const ring = new ByteRing(1 << 20);
    const tail = new RawTail(1 << 20, ring);
    tail.append(written(ring, 'one\n'), false, 0, FRESH_MODES);
    tail.append('\x1b[1m', false, 0, FRESH_MODES);
    tail.append(written(ring, 'two\n'), false, 0, FRESH_MODES);
    expect([0, 4, 8].map((offset) => tail.chunkAt(offset)?.start)).toEqual([0, 4, 8]);
  });

  it('keeps the first line feed of a joined chunk: the newest line feed is found in a chunk that had none', () => {
    const ring = new ByteRing(1 << 20);
    const tail = new RawTail(1 << 20, ring);
    tail.append(written(ring, 'abc'), false, 0, FRESH_MODES);
    tail.append(written(ring, 'de\nf'), false, 0, FRESH_MODES);
    tail.append(written(ring, 'g\nh'), false, 0, FRESH_MODES);
    expect(tail.chunkAt(8)?.start).toBe(0);
    expect(tail.lastLineFeedBefore(9)).toBe(8);
    expect(tail.lastLineFeedBefore(8)).toBe(5);
    expect(tail.lastLineFeedBefore(5)).toBe(-1);
    expect(tail.noLineFeedFrom(10)).toBe(true);
    expect(tail.noLineFeedFrom(9)).toBe(false);
  });
});
