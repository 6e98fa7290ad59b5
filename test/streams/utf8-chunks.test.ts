import fc from 'fast-check';
import { Utf8Chunks, wholeSequencesEnd } from '../../src/streams/utf8-chunks.js';
import { cutAt } from '../support/cut-points.js';

/** Bytes that exercise every path: ASCII, whole sequences of each length, their pieces, and bytes never valid. */
const piece = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'line\n', 'x'.repeat(40)).map((s) => Buffer.from(s)), weight: 4 },
  { arbitrary: fc.constantFrom('é', '中', '😀', '✓', '\u0301').map((s) => Buffer.from(s)), weight: 4 },
  {
    arbitrary: fc.constantFrom('é', '中', '😀').chain((s) => {
      const whole = Buffer.from(s);
      return fc.integer({ min: 1, max: whole.length - 1 }).map((n) => whole.subarray(0, n));
    }),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff).map((b) => Buffer.of(b)),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom([0xe0, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x80, 0x80], [0xf4, 0x90])
      .map((b) => Buffer.from(b)),
    weight: 1,
  },
);

describe('Utf8Chunks', () => {
  it('decodes any cut of any bytes exactly as one TextDecoder decodes them whole', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
        const bytes = Buffer.concat(pieces);
        const decoder = new Utf8Chunks();
        const chunks = cutAt(bytes.length, cuts, (from, to) => bytes.subarray(from, to));
        const text = chunks.map((chunk) => decoder.write(chunk)).join('') + decoder.end();
        expect(text).toBe(new TextDecoder().decode(bytes));
      }),
      { numRuns: 3_000 },
    );
  });

  it('holds back a sequence the chunk cut, and only that', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    expect(wholeSequencesEnd(Buffer.from('ab'))).toBe(2);
    expect(wholeSequencesEnd(Buffer.concat([Buffer.from('a'), euro]))).toBe(4);
    expect(wholeSequencesEnd(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]))).toBe(1);
    expect(wholeSequencesEnd(Buffer.of(0x61, 0xf0, 0x9f, 0x98))).toBe(1);
    // Never valid as a lead, or too many continuation bytes: nothing to wait for.
    expect(wholeSequencesEnd(Buffer.of(0x61, 0xc0))).toBe(2);
    expect(wholeSequencesEnd(Buffer.of(0x61, 0xf5))).toBe(2);
    expect(wholeSequencesEnd(Buffer.of(0x80, 0x80, 0x80, 0x80))).toBe(4);
    const decoder = new Utf8Chunks();
    expect(decoder.write(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]))).toBe('a');
    expect(decoder.write(euro.subarray(1))).toBe('€');
    expect(decoder.write(euro.subarray(0, 2))).toBe('');
    expect(decoder.end()).toBe('\ufffd');
    // A sequence cut over three chunks, the last one ASCII: the held bytes come out first, as U+FFFD.
    expect(decoder.write(euro.subarray(0, 1))).toBe('');
    expect(decoder.write(euro.subarray(1, 2))).toBe('');
    expect(decoder.write(Buffer.from('ok'))).toBe('\ufffdok');
  });

  it('gives ASCII as itself', () => {
    const decoder = new Utf8Chunks();
    expect(decoder.write(Buffer.from('plain ascii\n'))).toBe('plain ascii\n');
  });
});
