import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';

describe('OutputBuffer raw offsets (totalRawChars, rawSince)', () => {
  it('counts every raw character ever appended, dropped ones included', () => {
    const buffer = new OutputBuffer({ maxRawChars: 10 });
    buffer.append('hello\n');
    buffer.append('world, a longer chunk\n');
    expect(buffer.totalRawChars).toBe(28);
  });

  it('gives the text since an offset that is still kept', () => {
    const buffer = new OutputBuffer();
    buffer.append('abc');
    buffer.append('def\n');
    expect(buffer.rawSince(2)).toEqual({ text: 'cdef\n', from: 2 });
    expect(buffer.rawSince(7)).toEqual({ text: '', from: 7 });
    expect(buffer.rawSince(0)).toEqual({ text: 'abcdef\n', from: 0 });
  });

  it('starts at the oldest kept character when the offset was dropped, and says so with from > offset', () => {
    const buffer = new OutputBuffer({ maxRawChars: 8 });
    buffer.append('0123456789');
    buffer.append('abcdef');
    const { text, from } = buffer.rawSince(3);
    expect(from).toBeGreaterThan(3);
    expect(text).toBe('89abcdef');
    expect(from).toBe(buffer.totalRawChars - text.length);
  });

  it('refuses a negative or fractional offset', () => {
    const buffer = new OutputBuffer();
    expect(() => buffer.rawSince(-1)).toThrow(RangeError);
    expect(() => buffer.rawSince(1.5)).toThrow(RangeError);
  });

  it('matches the whole text ever appended, cut to what is kept, for any chunks and offsets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 50 }),
        fc.nat(700),
        (chunks, max, offset) => {
          const buffer = new OutputBuffer({ maxRawChars: max });
          for (const chunk of chunks) buffer.append(chunk);
          const all = chunks.join('');
          const { text, from } = buffer.rawSince(offset);
          expect(buffer.totalRawChars).toBe(all.length);
          expect(from + text.length).toBe(all.length);
          expect(text).toBe(all.slice(from));
          expect(from).toBeGreaterThanOrEqual(Math.min(offset, all.length));
          expect(text.length).toBeLessThanOrEqual(max);
          // Nothing kept is withheld: from is the asked offset unless that was dropped.
          if (offset >= all.length - Math.min(max, all.length) + 1) expect(from).toBe(Math.min(offset, all.length));
        },
      ),
    );
  });
});
