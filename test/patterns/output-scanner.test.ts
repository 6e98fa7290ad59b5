import fc from 'fast-check';
import { isAscii } from 'node:buffer';
import { LineCells } from '../../src/buffer/line-cells.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { MAX_PARTIAL_MATCH_CHARS } from '../../src/limits.js';
import { markOf, OutputScanner } from '../../src/patterns/output-scanner.js';

/**
 * Appends `chunk` as the ingest path does: ASCII as its bytes alone (kept as bytes when plain, so the scanner gets
 * byte parts), anything else with its bytes, so plain ASCII takes the native scan.
 */
function feed(buffer: OutputBuffer, chunk: string): void {
  const bytes = Buffer.from(chunk, 'utf8');
  if (isAscii(bytes)) buffer.appendAscii(bytes);
  else buffer.append(chunk, bytes);
}

describe('OutputScanner', () => {
  // Each second chunk finishes the line the first began, then brings a run of whole lines: two parts.
  it.each([
    ['a line in the run after the finished line', ['one\ntw', 'o\nthree\nneedle four\nfive\n'], 4, 'needle four'],
    ['the finished line itself, begun in the chunk before', ['one\nnee', 'dle two\nthree\n'], 2, 'needle two'],
  ])('finds %s, with its number', (_, [first, second], line, text) => {
    const buffer = new OutputBuffer();
    const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', 'needle'), markOf(buffer));
    feed(buffer, first as string);
    expect(scanner.scan()).toBeUndefined();
    feed(buffer, second as string);
    expect(scanner.scan()).toEqual({ line, text, unfinished: false });
  });

  describe('the line unfinished at the mark (a prompt before the call)', () => {
    const PROMPT = '[$#] $';
    const afterPrompt = (...chunks: string[]) => {
      const buffer = new OutputBuffer();
      feed(buffer, 'welcome\nbash$ ');
      const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', PROMPT), markOf(buffer));
      return chunks.map((chunk) => {
        feed(buffer, chunk);
        return scanner.scan();
      });
    };

    it('is no match when all that came of it was its line feed (readline answers Enter with one)', () => {
      expect(afterPrompt('\n', 'DONE\n', 'bash$ ')).toEqual([
        undefined,
        undefined,
        { line: 4, text: 'bash$ ', unfinished: true },
      ]);
      // In one chunk alike.
      expect(afterPrompt('\nDONE\nbash$ ')).toEqual([{ line: 4, text: 'bash$ ', unfinished: true }]);
    });

    it('is a match when it grew or changed before its line feed', () => {
      expect(afterPrompt('\r\u001b[K# \n')).toEqual([{ line: 2, text: '# ', unfinished: false }]);
      expect(afterPrompt('ls # \n')).toEqual([{ line: 2, text: 'bash$ ls # ', unfinished: false }]);
    });

    it('an empty line at the mark is no prompt: an empty line that comes is new', () => {
      const buffer = new OutputBuffer();
      feed(buffer, 'welcome\n');
      const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', '^$'), markOf(buffer));
      feed(buffer, '\n');
      expect(scanner.scan()).toEqual({ line: 2, text: '', unfinished: false });
    });
  });

  it('finds a line rendered on its own (a carriage return in it) after a run', () => {
    const buffer = new OutputBuffer();
    const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', '^done 100%$'), markOf(buffer));
    feed(buffer, 'a\nb\nc\ndone 10%\rdone 100%\n');
    expect(scanner.scan()).toEqual({ line: 4, text: 'done 100%', unfinished: false });
  });

  describe('an unfinished line kept as bytes (a flood with no line feed)', () => {
    afterEach(() => jest.restoreAllMocks());

    it('rules it out from its bytes without making its text, chunk after chunk, short chunks among them', () => {
      const buffer = new OutputBuffer();
      const scanner = new OutputScanner(
        buffer,
        compileLinearPattern('wait.pattern', 'never-printed-[0-9]{3}'),
        markOf(buffer),
      );
      const tailText = jest.spyOn(LineCells.prototype, 'partialTail');
      // Large chunks are kept as bytes, short ones (under 1 KiB) as text runs between them: the tail mixes both.
      for (let n = 0; n < 60; n++) {
        feed(buffer, `${n}`.padEnd([3_000, 500, 40][n % 3] as number, 'z'));
        expect(scanner.scan()).toBeUndefined();
      }
      expect(tailText).not.toHaveBeenCalled();
    });

    it.each([
      ['inside one kept run', ['z'.repeat(2_000), `${'z'.repeat(1_500)}ready> `], 'ready> '],
      [
        'across two kept runs (the tail joined from both)',
        [`${'z'.repeat(2_000)}rea`, `dy> ${'q'.repeat(1_100)}`],
        'ready> ',
      ],
      // Not ASCII: the tail's bytes cannot stand for its text, so it is tested as text.
      ['after a kept run, in text that is not ASCII', ['z'.repeat(2_000), 'café> '], 'café> '],
    ])('finds a prompt %s', (_, chunks, prompt) => {
      const buffer = new OutputBuffer();
      const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', prompt), markOf(buffer));
      feed(buffer, chunks[0] as string);
      expect(scanner.scan()).toBeUndefined();
      feed(buffer, chunks[1] as string);
      const found = scanner.scan();
      expect(found).toEqual({ line: 1, text: buffer.partialLine(), unfinished: true });
      expect(found?.text).toContain(prompt);
    });
  });

  it('finds the same first line as testing every finished line alone, however the output is cut', () => {
    const piece = fc.constantFrom('x', 'needle', 'y\n', '\n', 'ab\r', 'needle\n', '\u001b[2K', 'zz');
    fc.assert(
      fc.property(
        fc.array(fc.array(piece, { maxLength: 12 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 3 }),
        (chunks, before) => {
          // A buffer small enough that floods drop lines the scanner has not read: those are skipped, not found.
          const buffer = new OutputBuffer({ maxChars: 60, lineOverheadChars: 0 });
          const pattern = compileLinearPattern('wait.pattern', '^needle$');
          for (const chunk of chunks.slice(0, before)) feed(buffer, chunk.join(''));
          const mark = markOf(buffer);
          const scanner = new OutputScanner(buffer, pattern, mark);
          let next = buffer.completedLines + 1;
          // The line unfinished at the mark, finished by its line feed alone, brings nothing new.
          const isNew = (line: { lineNumber: number; text: string }) =>
            !(line.lineNumber === mark.line && mark.partialTail !== '' && line.text === mark.partialTail);
          for (const chunk of chunks.slice(before)) {
            feed(buffer, chunk.join(''));
            const found = scanner.scan();
            // The reference: the finished lines this chunk made readable, tested one by one.
            const fresh = buffer
              .linesFrom(next, Number.MAX_SAFE_INTEGER)
              .filter((line) => line.lineNumber <= buffer.completedLines);
            next = buffer.completedLines + 1;
            const expected = fresh.find((line) => pattern.test(line.text) && isNew(line));
            if (expected !== undefined) {
              expect(found).toEqual({ line: expected.lineNumber, text: expected.text, unfinished: false });
              return;
            }
            // No finished line matched: only the unfinished line may have (`needle` as a prompt).
            if (found !== undefined) expect(found.unfinished).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  describe('an unfinished line longer than MAX_PARTIAL_MATCH_CHARS (single-line JSON, a progress line)', () => {
    const LONG = MAX_PARTIAL_MATCH_CHARS + 1_000;

    it.each([
      ['whose match is at its start, all of it in one chunk', [`STATUS OK ${'x'.repeat(LONG)}`], 'STATUS OK', true],
      [
        'as a finished line is: ^ is its real start, not where a window of it begins',
        [`Z${'a'.repeat(LONG)}`],
        '^a',
        false,
      ],
      [
        'spanning the whole line, begun before its last chunks',
        [`START${'a'.repeat(LONG)}`, `${'a'.repeat(3_000)}END`],
        '^START.*END$',
        true,
      ],
    ])('is tested whole: %s', (_, chunks, source, matches) => {
      const buffer = new OutputBuffer();
      const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', source), markOf(buffer));
      let found: ReturnType<OutputScanner['scan']>;
      for (const chunk of chunks) {
        feed(buffer, chunk);
        found = scanner.scan() ?? scanner.settle();
      }
      expect(found !== undefined).toBe(matches);
      if (matches) expect(found).toEqual({ line: 1, text: buffer.partialLine(), unfinished: true });
    });

    it('is tested whole only once as much output came as it is long, and by settle once the output pauses', () => {
      const buffer = new OutputBuffer();
      const pattern = compileLinearPattern('wait.pattern', '^[0-9]');
      const scanner = new OutputScanner(buffer, pattern, markOf(buffer));
      const tested: number[] = [];
      const test = jest.spyOn(pattern, 'test').mockImplementation((text) => {
        tested.push(text.length);
        return false;
      });
      // 60 chunks of 4,000 characters: a line of 240,000 characters, tested at about each doubling.
      for (let n = 0; n < 60; n++) {
        feed(buffer, 'y'.repeat(4_000));
        expect(scanner.scan()).toBeUndefined();
      }
      const testedChars = tested.reduce((sum, length) => sum + length, 0);
      expect(testedChars).toBeLessThan(2 * 240_000 + 8 * MAX_PARTIAL_MATCH_CHARS);
      expect(tested.length).toBeLessThan(16);
      // The last chunks came after the last whole test: settle tests the line as it is now, once.
      expect(scanner.unsettled).toBe(true);
      expect(scanner.settle()).toBeUndefined();
      expect(tested.at(-1)).toBe(240_000);
      expect(scanner.unsettled).toBe(false);
      expect(scanner.settle()).toBeUndefined();
      expect(test).toHaveBeenCalledTimes(tested.length);
      // The pattern would match the line now: a scan with little new output leaves it to settle, which finds it.
      test.mockImplementation(() => true);
      feed(buffer, 'z');
      expect(scanner.scan()).toBeUndefined();
      expect(scanner.settle()).toMatchObject({ line: 1, unfinished: true });
    });

    describe("while it lacks the pattern's required literal (a flood with no line feed)", () => {
      afterEach(() => jest.restoreAllMocks());
      const SOURCE = 'never-printed-[0-9]{3}';
      /** `never-printed-` less one: how far before a chunk's new bytes a look must start. */
      const OVERLAP = 13;

      it("looks only at what each chunk appended and the literal's length less one before it, never at it whole", () => {
        const buffer = new OutputBuffer();
        const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', SOURCE), markOf(buffer));
        const looks = jest.spyOn(LineCells.prototype, 'partialTailAscii');
        const test = jest.spyOn(LineCells.prototype, 'partial');
        for (let n = 0; n < 60; n++) {
          feed(buffer, 'y'.repeat(4_000));
          expect(scanner.scan()).toBeUndefined();
        }
        expect(buffer.partialLength).toBe(240_000);
        expect(looks.mock.calls.map(([limit]) => limit)).toEqual(
          Array(60)
            .fill(4_000 + OVERLAP)
            .fill(4_000, 0, 1),
        );
        // Nothing was left for settle: without the literal, the line cannot match.
        expect(scanner.unsettled).toBe(false);
        expect(scanner.settle()).toBeUndefined();
        expect(test).not.toHaveBeenCalled();
      });

      it.each([
        ['in one chunk', ['zz never-printed-123 zz']],
        ['cut across two chunks', ['zz never-prin', 'ted-123 zz']],
        ['cut after its first character', ['zz n', 'ever-printed-123 zz']],
      ])('finds the match once the literal comes %s', (_, ending) => {
        const buffer = new OutputBuffer();
        const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', SOURCE), markOf(buffer));
        for (const chunk of ['y'.repeat(LONG), 'y'.repeat(2_000), ...ending]) {
          feed(buffer, chunk);
          expect(scanner.scan()).toBeUndefined();
        }
        expect(scanner.settle()).toEqual({ line: 1, text: buffer.partialLine(), unfinished: true });
      });

      it('looks at the line whole again once it was rewritten (a carriage return, then the literal over its head)', () => {
        const buffer = new OutputBuffer();
        const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', SOURCE), markOf(buffer));
        feed(buffer, 'y'.repeat(LONG));
        expect(scanner.scan()).toBeUndefined();
        feed(buffer, '\rnever-printed-123');
        const found = scanner.scan() ?? scanner.settle();
        expect(found).toEqual({ line: 1, text: buffer.partialLine(), unfinished: true });
        expect(found?.text.startsWith('never-printed-123yyy')).toBe(true);
      });

      it('starts over on the next line', () => {
        const buffer = new OutputBuffer();
        const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', SOURCE), markOf(buffer));
        feed(buffer, 'y'.repeat(LONG));
        expect(scanner.scan()).toBeUndefined();
        feed(buffer, `\nnever-printed-12${'y'.repeat(LONG)}`);
        expect(scanner.scan() ?? scanner.settle()).toBeUndefined();
        feed(buffer, '3');
        expect(scanner.scan() ?? scanner.settle()).toBeUndefined();
        // Longer than the line before, the literal at its head: only a look at it whole finds it.
        feed(buffer, `\nnever-printed-456${'y'.repeat(LONG + 3_000)}`);
        expect(scanner.scan() ?? scanner.settle()).toEqual({ line: 3, text: buffer.partialLine(), unfinished: true });
      });
    });

    it('is not taken for new output while it is as it was when the call began', () => {
      const buffer = new OutputBuffer();
      feed(buffer, `ready> ${'x'.repeat(LONG)}`);
      const scanner = new OutputScanner(buffer, compileLinearPattern('wait.pattern', 'ready>'), markOf(buffer));
      expect(scanner.scan()).toBeUndefined();
      expect(scanner.settle()).toBeUndefined();
      feed(buffer, '!');
      expect(scanner.scan()).toBeUndefined();
      expect(scanner.settle()).toMatchObject({ line: 1, unfinished: true });
    });
  });
});
