import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import type { RawChunk } from '../../src/buffer/raw-tail.js';

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

describe('OutputBuffer raw helpers for a screen read from the end (rawStart, lastRawLineFeedBefore, noLineFeedFrom, plainFrom)', () => {
  it('property: line feeds as a search of all text finds them: the newest kept before any offset, none from one on', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[ab\n]{0,12}$/), { maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (chunks, maxRawChars, picks) => {
          const buffer = new OutputBuffer({ maxRawChars });
          for (const chunk of chunks) buffer.append(chunk);
          const all = chunks.join('');
          const { text, from } = buffer.rawSince(0);
          expect(buffer.rawStart).toBe(from);
          let chunkEnd = 0;
          let lineFeedChunkEnd = 0;
          for (const chunk of chunks) {
            chunkEnd += chunk.length;
            if (chunk.includes('\n')) lineFeedChunkEnd = chunkEnd;
          }
          for (const pick of [...picks, all.length, from, 0]) {
            const before = pick % (all.length + 2);
            const at = text.lastIndexOf('\n', before - from - 1);
            expect(buffer.lastRawLineFeedBefore(before)).toBe(before <= from || at === -1 ? -1 : from + at);
            // None from an offset on, dropped output included: never said wrongly; unsure (false) only within the
            // chunk of the newest line feed.
            const none = buffer.noLineFeedFrom(before);
            if (none) expect(all.includes('\n', before)).toBe(false);
            expect(none).toBe(before >= lineFeedChunkEnd);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is plain from an offset only after chunks of printable ASCII and line feeds, each begun outside a sequence', () => {
    const buffer = new OutputBuffer();
    const append = (text: string) => buffer.append(text, Buffer.from(text, 'utf8'));
    append('hello\n');
    expect(buffer.plainFrom(0)).toBe(true);
    append('red \x1b[31m');
    const afterColor = buffer.totalRawChars;
    expect(buffer.plainFrom(0)).toBe(false);
    expect(buffer.plainFrom(afterColor)).toBe(true);
    append('\x1b[?10');
    const split = buffer.totalRawChars;
    // Plain bytes, but they end the sequence the last chunk began: not plain for a reader from the end.
    append('49hmore text\n');
    expect(buffer.plainFrom(split)).toBe(false);
    const afterSplit = buffer.totalRawChars;
    append('x'.repeat(100));
    expect(buffer.plainFrom(afterSplit)).toBe(true);
    // Without its bytes (or not ASCII), a chunk is never known plain.
    buffer.append('plain but unscanned\n');
    expect(buffer.plainFrom(afterSplit)).toBe(false);
    append('héllo\n');
    expect(buffer.plainFrom(buffer.totalRawChars - 6)).toBe(false);
    expect(buffer.plainFrom(buffer.totalRawChars)).toBe(true);
  });
});

/**
 * Whether a VT parser is inside an escape sequence, for the sequences these tests write: ESC and its intermediates,
 * CSI, OSC to BEL or ESC. C0 controls inside ESC or CSI are executed and end neither; CAN and SUB abandon any.
 */
class SequenceParser {
  private state: 'ground' | 'escape' | 'csi' | 'osc' = 'ground';

  get open(): boolean {
    return this.state !== 'ground';
  }

  /** Where in `text` the sequence open now ends (one that starts over at an ESC runs on), or undefined. */
  endOfOpen(text: string): number | undefined {
    const probe = new SequenceParser();
    probe.state = this.state;
    for (let at = 0; at < text.length; at++) {
      const inside = probe.state === 'escape' || probe.state === 'csi';
      probe.feed(text[at] as string);
      // Past ASCII, a character cannot belong to an ESC or CSI sequence: it ends it and is text itself.
      if (!probe.open) return inside && text.charCodeAt(at) > 0x7f ? at : at + 1;
    }
    return undefined;
  }

  feed(text: string): void {
    for (const char of text) {
      const unit = char.charCodeAt(0);
      if (unit === 0x18 || unit === 0x1a) this.state = 'ground';
      else if (unit === 0x1b) this.state = 'escape';
      else if (this.state === 'escape') {
        if (char === '[') this.state = 'csi';
        else if (char === ']') this.state = 'osc';
        else if (unit > 0x2f) this.state = 'ground';
      } else if (this.state === 'csi') {
        if ((unit >= 0x40 && unit <= 0x7e) || unit > 0x7f) this.state = 'ground';
      } else if (this.state === 'osc' && unit === 0x07) this.state = 'ground';
    }
  }
}

describe('OutputBuffer.rawChunkAt: the kept chunk around an offset, and the screen it began on', () => {
  it('keeps each chunk with its screen across the compactions of a long run of chunks', () => {
    const buffer = new OutputBuffer({ maxRawChars: 50 });
    // Chunk k starts on the alternate screen when k is odd: each even chunk enters it, each odd one leaves it.
    for (let k = 0; k < 5_000; k++) buffer.append(k % 2 === 0 ? `${k}\x1b[?1049h` : `${k}\x1b[?1049l`);
    for (let offset = buffer.rawStart; offset < buffer.totalRawChars; offset++) {
      const found = buffer.rawChunkAt(offset);
      const k = Number(/^\d+/.exec(found?.text ?? '')?.[0]);
      expect(found?.alternateAtStart).toBe(k % 2 === 1);
    }
  });

  it('property: each kept chunk whole from its start, with the alternate screen as a buffer fed up to it says', () => {
    const chunk = fc.oneof(
      fc.constantFrom(
        '\x1b[?1049h',
        '\x1b[?1049l',
        '\x1bc',
        'text\n',
        '\x1b[?10',
        '49h',
        '\x1b]2;t',
        '\x07',
        '\x1b\\',
        '中x',
        '\x1b[?1049h\x1b[?10',
      ),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(chunk, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 60 }), (chunks, max) => {
        const buffer = new OutputBuffer({ maxRawChars: max });
        /** Per chunk appended: its start, and the screen a buffer fed every chunk before it is on, if between sequences. */
        const model: RawChunk[] = [];
        const texts = chunks.filter((text) => text !== '');
        const whole = texts.join('');
        const before = new OutputBuffer();
        const parser = new SequenceParser();
        let start = 0;
        for (const text of texts) {
          if (!parser.open) {
            const { modes } = before.modesAt(before.totalRawChars) ?? {};
            model.push({ text, start, alternateAtStart: before.alternateScreen, carriedEnd: 0, modesAtStart: modes });
          } else {
            // Cut at its start: known from where the cut sequence ends, in this chunk or a later one, if it does.
            const end = parser.endOfOpen(whole.slice(start));
            // CAN after it: a sequence that a character past ASCII ended is over there, and CAN changes nothing else.
            const upToEnd = new OutputBuffer();
            upToEnd.append(`${whole.slice(0, start + (end ?? 0))}\x18`);
            const { modes } = upToEnd.modesAt(upToEnd.totalRawChars) ?? {};
            model.push(
              end === undefined
                ? {
                    text,
                    start,
                    alternateAtStart: undefined,
                    carriedEnd: whole.length - start,
                    modesAtStart: undefined,
                  }
                : { text, start, alternateAtStart: upToEnd.alternateScreen, carriedEnd: end, modesAtStart: modes },
            );
          }
          buffer.append(text);
          before.append(text);
          parser.feed(text);
          start += text.length;
        }
        for (let offset = 0; offset <= buffer.totalRawChars; offset++) {
          const found = buffer.rawChunkAt(offset);
          if (offset < buffer.rawStart || offset === buffer.totalRawChars) {
            // Dropped offsets may still be in the oldest kept chunk; past the end there is none.
            if (offset === buffer.totalRawChars) expect(found).toBeUndefined();
            if (found === undefined) continue;
          }
          const expected = model.find((c) => c.start <= offset && offset < c.start + c.text.length);
          expect(found).toEqual(expected);
        }
      }),
    );
  });
});
