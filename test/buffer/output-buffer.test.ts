import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { ByteRing, partText } from '../../src/buffer/byte-ring.js';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { LINE_OVERHEAD_CHARS, MAX_BUFFER_CHARS } from '../../src/limits.js';
import { partNumbers } from '../support/part-numbers.js';

const texts = (buffer: OutputBuffer): string[] => buffer.page(0, buffer.retainedLines).map((line) => line.text);

/** What the bound counts: every retained line plus its newline plus the per-line overhead. */
const cost = (buffer: OutputBuffer, overhead = LINE_OVERHEAD_CHARS): number =>
  texts(buffer).reduce((sum, text) => sum + text.length + 1 + overhead, 0);

describe('OutputBuffer', () => {
  describe('lines and numbering', () => {
    it('numbers lines from 1 and includes the partial last line once it is non-empty', () => {
      const buffer = new OutputBuffer();
      expect(buffer.totalLines).toBe(0);
      expect(buffer.tail(5)).toEqual([]);
      buffer.append('first\nsec');
      expect(buffer.totalLines).toBe(2);
      expect(buffer.tail(5)).toEqual([
        { lineNumber: 1, text: 'first' },
        { lineNumber: 2, text: 'sec' },
      ]);
      buffer.append('ond\n');
      expect(buffer.totalLines).toBe(2);
      expect(buffer.tail(1)).toEqual([{ lineNumber: 2, text: 'second' }]);
    });

    it('renders what it stores (escapes removed, carriage returns resolved)', () => {
      const buffer = new OutputBuffer();
      buffer.append('\x1b[32m10%\r');
      buffer.append('100%\x1b[0m\r');
      expect(buffer.tail(1)).toEqual([{ lineNumber: 1, text: '100%' }]);
      buffer.append('\n');
      expect(texts(buffer)).toEqual(['100%']);
    });

    it('drops the oldest lines first and keeps absolute numbers', () => {
      const buffer = new OutputBuffer({ maxChars: 10, lineOverheadChars: 0 });
      buffer.append('aaa\nbbb\n');
      expect(buffer.droppedLines).toBe(0);
      buffer.append('ccc\n');
      expect(buffer.droppedLines).toBe(1);
      expect(buffer.firstLine).toBe(2);
      expect(buffer.page(0, 10)).toEqual([
        { lineNumber: 2, text: 'bbb' },
        { lineNumber: 3, text: 'ccc' },
      ]);
      buffer.append('dd\neeeeee\n');
      expect(buffer.page(0, 10)).toEqual([
        { lineNumber: 4, text: 'dd' },
        { lineNumber: 5, text: 'eeeeee' },
      ]);
      expect(buffer.stats()).toEqual({
        firstLine: 4,
        totalLines: 5,
        retainedLines: 2,
        droppedLines: 3,
        retainedChars: 10,
        rawChars: 22,
        totalRawChars: 22,
      });
    });

    it('counts the growing partial line against the bound', () => {
      const buffer = new OutputBuffer({ maxChars: 10, lineOverheadChars: 0 });
      buffer.append('aa\nbb\n');
      buffer.append('cccc');
      expect(texts(buffer)).toEqual(['bb', 'cccc']);
      buffer.append('ccccc');
      expect(texts(buffer)).toEqual(['ccccccccc']);
      expect(buffer.firstLine).toBe(3);
      expect(buffer.totalLines).toBe(3);
    });

    it('keeps the newest tail of a line longer than the whole bound', () => {
      const buffer = new OutputBuffer({ maxChars: 10, lineOverheadChars: 0 });
      buffer.append('old\n');
      buffer.append('0123456789abcdef\n');
      // Its head lost, and said so: 7 + 9 characters as printed.
      expect(buffer.page(0, 5)).toEqual([{ lineNumber: 2, text: '789abcdef', headDropped: 7 }]);
      expect(buffer.headDropped(2)).toBe(7);
      buffer.append('x'.repeat(100));
      expect(buffer.page(0, 5)).toEqual([{ lineNumber: 3, text: 'x'.repeat(9), headDropped: 91 }]);
      buffer.append('\nshort\n');
      expect(buffer.page(0, 5)).toEqual([{ lineNumber: 4, text: 'short' }]);
      expect([buffer.headDropped(3), buffer.headDropped(4)]).toEqual([0, 0]);
    });

    it('keeps a huge single line within the default bound', () => {
      const buffer = new OutputBuffer();
      const line = `${'ab'.repeat(MAX_BUFFER_CHARS)}END`;
      buffer.append(line);
      const [partial] = buffer.tail(1);
      expect(partial?.text.length).toBe(MAX_BUFFER_CHARS - 1 - LINE_OVERHEAD_CHARS);
      expect(partial?.text.endsWith('babEND')).toBe(true);
      expect(buffer.stats().retainedChars).toBe(MAX_BUFFER_CHARS);
      buffer.append('\nnext\n');
      expect(buffer.tail(1)).toEqual([{ lineNumber: 2, text: 'next' }]);
      expect(cost(buffer)).toBeLessThanOrEqual(MAX_BUFFER_CHARS);
    });
  });

  describe('page and tail', () => {
    const buffer = new OutputBuffer();
    buffer.append('l1\nl2\nl3\nl4');

    it('pages by 0-based offset over the retained lines', () => {
      expect(buffer.page(1, 2)).toEqual([
        { lineNumber: 2, text: 'l2' },
        { lineNumber: 3, text: 'l3' },
      ]);
      expect(buffer.page(2, 100).map((line) => line.lineNumber)).toEqual([3, 4]);
    });

    it('returns nothing past the end or for limit 0', () => {
      expect(buffer.page(4, 10)).toEqual([]);
      expect(buffer.page(1_000, 10)).toEqual([]);
      expect(buffer.page(0, 0)).toEqual([]);
      expect(buffer.tail(0)).toEqual([]);
    });

    it('shapes each line of a page as the caller asks, with the same numbers, text and bounds as page', () => {
      const dropped = new OutputBuffer({ maxChars: 12, lineOverheadChars: 0 });
      dropped.append('a1\na2\na3\na4\na5\na6\na7');
      const shaped = (offset: number, limit: number) => dropped.pageAs(offset, limit, (n, text) => `${n}:${text}`);
      expect(shaped(0, 100)).toEqual(['4:a4', '5:a5', '6:a6', '7:a7']);
      for (const [offset, limit] of [
        [0, 100],
        [1, 2],
        [dropped.retainedLines - 1, 5],
        [dropped.retainedLines, 5],
        [0, 0],
      ] as const)
        expect(shaped(offset, limit)).toEqual(dropped.page(offset, limit).map((l) => `${l.lineNumber}:${l.text}`));
      expect(shaped(2, 1)).toEqual(['6:a6']);
      expect(() => dropped.pageAs(-1, 1, String)).toThrow(RangeError);
    });

    it('tails at most what is retained', () => {
      expect(buffer.tail(2).map((line) => line.text)).toEqual(['l3', 'l4']);
      expect(buffer.tail(100).map((line) => line.lineNumber)).toEqual([1, 2, 3, 4]);
    });

    it('rejects negative or fractional offsets and limits', () => {
      expect(() => buffer.page(-1, 1)).toThrow(RangeError);
      expect(() => buffer.page(0, 1.5)).toThrow(RangeError);
      expect(() => buffer.tail(-1)).toThrow(RangeError);
    });
  });

  describe('searchText', () => {
    /** Absolute line numbers of matches, as grep reports them through the mapping. */
    function grep(buffer: OutputBuffer, pattern: string): number[] {
      const { parts, firstLine } = buffer.searchText();
      const result = spawnSync('grep', ['-n', '-e', pattern], { input: parts.join(''), encoding: 'utf8' });
      return result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => firstLine + Number(line.slice(0, line.indexOf(':'))) - 1);
    }

    it('maps grep line numbers to absolute line numbers after drops', () => {
      const buffer = new OutputBuffer({ maxChars: 40, lineOverheadChars: 0 });
      for (let i = 1; i <= 30; i++) buffer.append(i % 3 === 0 ? `hit ${i}\n` : `miss\n`);
      buffer.append('hit partial');
      const expected = buffer
        .page(0, buffer.retainedLines)
        .filter((line) => line.text.includes('hit'))
        .map((line) => line.lineNumber);
      expect(expected.length).toBeGreaterThan(1);
      expect(expected.at(-1)).toBe(31);
      expect(grep(buffer, 'hit')).toEqual(expected);
    });

    it('keeps empty lines countable, the last one included', () => {
      const buffer = new OutputBuffer();
      buffer.append('a\n\nb\n\n');
      const { parts, firstLine } = buffer.searchText();
      expect({ text: parts.join(''), firstLine }).toEqual({ text: 'a\n\nb\n\n', firstLine: 1 });
      expect(grep(buffer, '^$')).toEqual([2, 4]);
    });
  });

  describe('lastNonBlankLineHead', () => {
    it('skips trailing blank lines and prefers a non-blank partial line', () => {
      const buffer = new OutputBuffer();
      expect(buffer.lastNonBlankLineHead(100)).toBeUndefined();
      buffer.append('first\nlast words\n  \n\n\t');
      expect(buffer.lastNonBlankLineHead(100)).toBe('last words');
      expect(buffer.lastNonBlankLineHead(4)).toBe('last');
      buffer.append('$ ');
      expect(buffer.lastNonBlankLineHead(100)).toBe('\t$ ');
      expect(buffer.lastNonBlankLineHead(0)).toBe('');
    });

    it('gives the head of a line whose first characters are blank when the rest is not, and skips one blank all through', () => {
      const buffer = new OutputBuffer();
      buffer.append(`older\n${' '.repeat(300)}late\n${' '.repeat(300)}\n`);
      expect(buffer.lastNonBlankLineHead(10)).toBe(' '.repeat(10));
      expect(buffer.lastNonBlankLineHead(400)).toBe(`${' '.repeat(300)}late`);
      buffer.append('\t'.repeat(50));
      expect(buffer.lastNonBlankLineHead(10)).toBe(' '.repeat(10));
    });

    it('refuses a negative or fractional limit', () => {
      const buffer = new OutputBuffer();
      expect(() => buffer.lastNonBlankLineHead(-1)).toThrow(/limit/);
      expect(() => buffer.lastNonBlankLineHead(1.5)).toThrow(/limit/);
    });

    it('makes no string of a long line but its head, completed or still open', () => {
      const buffer = new OutputBuffer();
      const text = jest.spyOn(ByteRing.prototype, 'text');
      /** The characters read out of the ring as strings since the last call. */
      const madeSince = () => {
        const made = text.mock.results.reduce((sum, result) => sum + (result.value as string).length, 0);
        text.mockClear();
        return made;
      };
      // Plain chunks with no line feed: the open line holds them as spans of the ring.
      for (let n = 0; n < 200; n++) buffer.appendAscii(Buffer.from('c'.repeat(4_000), 'latin1'));
      madeSince();
      expect(buffer.lastNonBlankLineHead(201)).toBe('c'.repeat(201));
      expect(madeSince()).toBe(201);
      // One span finished by a lone line feed: the store keeps the line as those bytes.
      const completed = new OutputBuffer();
      completed.appendAscii(Buffer.from(`${'d'.repeat(100_000)}`, 'latin1'));
      completed.appendAscii(Buffer.from('\n', 'latin1'));
      madeSince();
      expect(completed.lastNonBlankLineHead(201)).toBe('d'.repeat(201));
      expect(madeSince()).toBe(201);
      // The whole line, to be sure the spy sees what a whole line costs.
      expect(completed.page(0, 1)[0]?.text).toBe('d'.repeat(100_000));
      expect(madeSince()).toBe(100_000);
      text.mockRestore();
    });
  });

  describe('raw text', () => {
    it('keeps the raw tail, escapes and carriage returns untouched', () => {
      const buffer = new OutputBuffer({ maxRawChars: 8 });
      buffer.append('\x1b[31mred');
      expect(buffer.rawText()).toBe('\x1b[31mred');
      buffer.append('\r\n');
      expect(buffer.rawText()).toBe('31mred\r\n');
    });

    it('never holds more than the raw bound, whatever the chunks', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ maxLength: 30 })), fc.integer({ min: 1, max: 20 }), (chunks, maxRawChars) => {
          const buffer = new OutputBuffer({ maxRawChars });
          let all = '';
          for (const chunk of chunks) {
            buffer.append(chunk);
            all += chunk;
            expect(buffer.rawText()).toBe(all.slice(-maxRawChars));
            expect(buffer.stats().rawChars).toBe(Math.min(all.length, maxRawChars));
          }
        }),
      );
    });
  });

  describe('bound property', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 25 }),
      fc.constantFrom('\n', '\r\n', '\r', '\n\n\n', '\x1b[31m', '\x1b]0;t\x07', '\b'),
    );

    it('never retains more than the bound and keeps exactly the newest lines that fit', () => {
      fc.assert(
        fc.property(
          fc.array(piece, { maxLength: 60 }),
          fc.integer({ min: 0, max: 28 }),
          fc.integer({ min: 0, max: 6 }),
          (chunks, room, overhead) => {
            const maxChars = 2 + overhead + room;
            const buffer = new OutputBuffer({ maxChars, lineOverheadChars: overhead });
            // The reference renders everything unbounded (lines cut to the same length) and keeps what fits.
            const reference = new LineRenderer({ maxLineChars: maxChars - 1 - overhead });
            const all: string[] = [];
            const limits = [0, 1, 3, 1000];
            for (const chunk of chunks) {
              buffer.append(chunk);
              // Before anything builds the partial line (and caches it): the tail is then made from the runs.
              const tails = limits.map((limit) => buffer.partialTail(limit));
              all.push(...reference.push(chunk));
              const partial = reference.partial();
              const everything = partial === '' ? all : [...all, partial];

              let kept = 0;
              let chars = 0;
              while (
                kept < everything.length &&
                chars + (everything[everything.length - 1 - kept]?.length ?? 0) + 1 + overhead <= maxChars
              ) {
                chars += (everything[everything.length - 1 - kept]?.length ?? 0) + 1 + overhead;
                kept++;
              }
              expect(cost(buffer, overhead)).toBeLessThanOrEqual(maxChars);
              expect(buffer.stats().retainedChars).toBe(cost(buffer, overhead));
              expect(texts(buffer)).toEqual(everything.slice(everything.length - kept));
              expect(buffer.totalLines).toBe(everything.length);
              expect(buffer.firstLine).toBe(everything.length - kept + 1);
              expect(buffer.tail(1)[0]?.lineNumber ?? buffer.totalLines).toBe(buffer.totalLines);
              // What a scanner of live output reads: finished lines from any number on, and the partial line's end.
              const finished = texts(buffer).slice(0, buffer.completedLines - buffer.firstLine + 1);
              for (let line = buffer.firstLine - 1; line <= buffer.completedLines + 1; line++) {
                const from = Math.max(line, buffer.firstLine);
                const completed = buffer.completedPartsFrom(line);
                const parts = completed.parts().map(partText);
                const firstLines = completed.firstLines();
                // Each part numbered from the lines before it, counted here the slow way.
                expect(firstLines).toEqual(partNumbers(parts, from));
                expect(parts.join('')).toBe(
                  finished
                    .slice(from - buffer.firstLine)
                    .map((l) => `${l}\n`)
                    .join(''),
                );
                // Whole lines in every part, so a scanner can test each alone.
                for (const part of parts) expect(part).toMatch(/\n$/);
              }
              expect(tails).toEqual(limits.map((limit) => (limit === 0 ? '' : buffer.partialLine().slice(-limit))));
            }
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  it('keeps what a full-screen program draws out of its lines, plain bytes too, and in its raw output', () => {
    const buffer = new OutputBuffer();
    const plain = Buffer.from('drawn row\n'.repeat(300), 'latin1');
    buffer.append('$ ');
    buffer.append('\x1b[?1049h');
    // Plain ASCII bytes, which outside the alternate screen are kept as bytes by a way of their own (keepPlain).
    buffer.appendAscii(plain);
    buffer.append(plain.toString('latin1'), plain);
    buffer.appendAscii(Buffer.from('x'.repeat(5_000), 'latin1'));
    expect(buffer.alternateScreen).toBe(true);
    expect([buffer.totalLines, buffer.partialLine()]).toEqual([1, '$ ']);
    buffer.append('\x1b[?1049l');
    buffer.appendAscii(Buffer.from('back\nnext\n', 'latin1'));
    expect(texts(buffer)).toEqual(['$ back', 'next']);
    expect(buffer.rawText()).toBe(
      `$ \x1b[?1049h${plain.toString('latin1').repeat(2)}${'x'.repeat(5_000)}\x1b[?1049lback\nnext\n`,
    );
  });

  it('charges every line its overhead, so a flood of tiny lines keeps proportionally fewer of them', () => {
    const buffer = new OutputBuffer({ maxChars: 1_000, lineOverheadChars: 8 });
    buffer.append('y\n'.repeat(5_000));
    // 1 char + newline + 8 = 10 per line: 100 lines fit, not the 500 that counting characters alone would keep.
    expect(buffer.retainedLines).toBe(100);
    expect(buffer.stats()).toMatchObject({ retainedChars: 1_000, droppedLines: 4_900, totalLines: 5_000 });
    // The longest line a buffer keeps leaves room for its own newline and overhead.
    buffer.append('x'.repeat(5_000));
    expect(buffer.tail(1)[0]?.text).toBe('x'.repeat(1_000 - 1 - 8));
    expect(buffer.stats().retainedChars).toBe(1_000);
  });

  it('rejects bounds too small to hold a line', () => {
    expect(() => new OutputBuffer({ maxChars: 1, lineOverheadChars: 0 })).toThrow(RangeError);
    expect(() => new OutputBuffer({ maxChars: 2 + LINE_OVERHEAD_CHARS - 1 })).toThrow(
      /maxChars must be an integer >= 18/,
    );
    expect(() => new OutputBuffer({ lineOverheadChars: -1 })).toThrow(RangeError);
    expect(() => new OutputBuffer({ maxRawChars: 0 })).toThrow(RangeError);
  });
});
