import fc from 'fast-check';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';

/** The buffer methods helpers C, D and E agreed on (see the buffer-api brief); any OutputBuffer must pass these. */
describe('OutputBuffer agreed API', () => {
  describe('completedLines and partialLine', () => {
    it('counts finished lines only; the unfinished one is completedLines + 1', () => {
      const buffer = new OutputBuffer();
      expect([buffer.completedLines, buffer.partialLine()]).toEqual([0, '']);
      buffer.append('one\ntw');
      expect([buffer.completedLines, buffer.partialLine()]).toEqual([1, 'tw']);
      expect(buffer.linesFrom(buffer.completedLines + 1, 5)).toEqual([{ lineNumber: 2, text: 'tw' }]);
      buffer.append('o\n');
      expect([buffer.completedLines, buffer.partialLine()]).toEqual([2, '']);
    });

    it('renders the unfinished line: a prompt between escapes, a progress bar at its last state', () => {
      const buffer = new OutputBuffer();
      buffer.append('\x1b[1m>>> \x1b[0m');
      expect(buffer.partialLine()).toBe('>>> ');
      buffer.append('\n10%\r50%');
      expect([buffer.completedLines, buffer.partialLine()]).toEqual([1, '50%']);
      // Erased to nothing is no line at all.
      buffer.append('\r\x1b[K');
      expect([buffer.partialLine(), buffer.totalLines]).toEqual(['', 1]);
    });

    it('counts dropped lines too', () => {
      const buffer = new OutputBuffer({ maxChars: 8, lineOverheadChars: 0 });
      buffer.append('a\nb\nc\nd\ne\nf\n');
      expect(buffer.droppedLines).toBe(2);
      expect(buffer.completedLines).toBe(6);
    });
  });

  describe('linesFrom', () => {
    const buffer = new OutputBuffer({ maxChars: 12, lineOverheadChars: 0 });
    buffer.append('aaa\nbbb\nccc\nddd\npa');

    it('starts at the oldest retained line when asked for an older one', () => {
      expect(buffer.firstLine).toBe(3);
      expect(buffer.linesFrom(1, 1)).toEqual([{ lineNumber: 3, text: 'ccc' }]);
      expect(buffer.linesFrom(-5, 1)).toEqual([{ lineNumber: 3, text: 'ccc' }]);
    });

    it('returns at most limit lines, the unfinished line last, and none past the end', () => {
      expect(buffer.linesFrom(4, 1)).toEqual([{ lineNumber: 4, text: 'ddd' }]);
      expect(buffer.linesFrom(4, 10)).toEqual([
        { lineNumber: 4, text: 'ddd' },
        { lineNumber: 5, text: 'pa' },
      ]);
      expect(buffer.linesFrom(6, 10)).toEqual([]);
      expect(buffer.linesFrom(4, 0)).toEqual([]);
    });

    it('rejects a fractional line number or a negative limit, saying which', () => {
      expect(() => buffer.linesFrom(1.5, 1)).toThrow(/lineNumber must be an integer, got 1.5/);
      expect(() => buffer.linesFrom(1, -1)).toThrow(/limit must be an integer >= 0, got -1/);
    });
  });

  describe('totalRawChars and rawSince', () => {
    it('reads raw output from an absolute offset, escapes untouched', () => {
      const buffer = new OutputBuffer();
      buffer.append('\x1b[31mred\r\n');
      const mark = buffer.totalRawChars;
      expect(mark).toBe(10);
      buffer.append('more');
      expect(buffer.rawSince(mark)).toEqual({ text: 'more', from: 10 });
      expect(buffer.rawSince(0)).toEqual({ text: '\x1b[31mred\r\nmore', from: 0 });
      expect(buffer.rawSince(buffer.totalRawChars)).toEqual({ text: '', from: 14 });
    });

    it('says output was lost when the offset is older than what is kept', () => {
      const buffer = new OutputBuffer({ maxRawChars: 5 });
      buffer.append('0123');
      buffer.append('456789');
      expect(buffer.totalRawChars).toBe(10);
      expect(buffer.rawSince(2)).toEqual({ text: '56789', from: 5 });
      expect(buffer.rawSince(7)).toEqual({ text: '789', from: 7 });
    });

    it('says how much raw output went before what is kept, and whether its first line began there', () => {
      const buffer = new OutputBuffer({ maxRawChars: 5 });
      buffer.append('abc\n');
      expect(buffer.rawDropped()).toEqual({ chars: 0, midLine: false });
      buffer.append('defg\n');
      expect([buffer.rawText(), buffer.rawDropped()]).toEqual(['defg\n', { chars: 4, midLine: false }]);
      buffer.append('h');
      expect([buffer.rawText(), buffer.rawDropped()]).toEqual(['efg\nh', { chars: 5, midLine: true }]);
    });

    it('never starts on the second half of a surrogate pair that the bound cut', () => {
      const buffer = new OutputBuffer({ maxRawChars: 3 });
      buffer.append('a😀bc');
      expect(buffer.rawSince(0)).toEqual({ text: 'bc', from: 3 });
      expect(buffer.rawText()).toBe('bc');
    });

    it('rejects offsets that are negative or fractional, and reads nothing past the end', () => {
      const buffer = new OutputBuffer();
      buffer.append('abc');
      expect(() => buffer.rawSince(-1)).toThrow(/offset must be an integer >= 0, got -1/);
      expect(() => buffer.rawSince(0.5)).toThrow(RangeError);
      expect(buffer.rawSince(4)).toEqual({ text: '', from: 3 });
    });

    it('agrees with the concatenated input for any chunking and bound', () => {
      fc.assert(
        fc.property(
          fc.array(fc.string({ maxLength: 20 }), { maxLength: 30 }),
          fc.integer({ min: 1, max: 40 }),
          fc.nat(),
          (chunks, maxRawChars, pick) => {
            const buffer = new OutputBuffer({ maxRawChars });
            const all = chunks.join('');
            for (const chunk of chunks) buffer.append(chunk);
            expect(buffer.totalRawChars).toBe(all.length);
            const offset = all.length === 0 ? 0 : pick % (all.length + 1);
            const { text, from } = buffer.rawSince(offset);
            expect(from).toBe(Math.max(offset, all.length - maxRawChars));
            expect(text).toBe(all.slice(from));
            // What the raw text leaves out, and whether its first line began there (grep's view: a line starts
            // at 0 and after every newline).
            const start = buffer.rawSince(0).from;
            expect(buffer.rawDropped()).toEqual({ chars: start, midLine: start > 0 && all[start - 1] !== '\n' });
          },
        ),
      );
    });
  });

  it('linesFrom, completedLines and partialLine agree with an unbounded renderer for any chunking', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('\n', '\r\n', '\r', '\x1b[2K', '\x1b[32m', 'ab\ncd\nef\n'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 16 }), (chunks, pieceChars) => {
        const buffer = new OutputBuffer({ pieceChars });
        const reference = new LineRenderer();
        const lines: string[] = [];
        for (const chunk of chunks) {
          buffer.append(chunk);
          lines.push(...reference.push(chunk));
          expect(buffer.completedLines).toBe(lines.length);
          expect(buffer.partialLine()).toBe(reference.partial());
          const from = Math.max(lines.length - 3, 1);
          const expected = lines.slice(from - 1).map((text, i) => ({ lineNumber: from + i, text }));
          if (reference.partial() !== '') expected.push({ lineNumber: lines.length + 1, text: reference.partial() });
          expect(buffer.linesFrom(from, 100)).toEqual(expected);
        }
      }),
    );
  });
});
