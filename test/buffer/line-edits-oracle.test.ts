import fc from 'fast-check';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { MAX_TERMINAL_DIMENSION } from '../../src/limits.js';
import { createTerminal } from '../../src/screen/xterm.js';

const COLS = 200;

/** The first row of an xterm.js terminal (the screen view's emulator) after `input`, trailing blanks trimmed. */
function xtermRow(input: string): Promise<string> {
  const terminal = createTerminal({ rows: 3, cols: COLS });
  return new Promise((resolve) => {
    terminal.write(input, () => {
      const row = terminal.buffer.active.getLine(0)?.translateToString(true) ?? '';
      terminal.dispose();
      resolve(row);
    });
  });
}

/** The line as the line view renders it, trailing blanks trimmed as a terminal's row is. */
function lineView(input: string): string {
  const renderer = new LineRenderer();
  renderer.push(input);
  return renderer.push('\n')[0]?.trimEnd() ?? '';
}

describe('the line view of a line edited in place, against xterm.js', () => {
  it.each([
    ['delete characters (DCH)', 'abcdef\u001b[2D\u001b[P', 'abcdf'],
    ['insert blanks (ICH) then a character', 'abcdef\u001b[3D\u001b[@Z', 'abcZdef'],
    ['erase characters (ECH)', 'abcdef\u001b[4D\u001b[2X', 'ab  ef'],
    ['erase characters to the end', 'abcdef\u001b[2D\u001b[9X', 'abcd'],
    ['a cursor saved and restored (DECSC/DECRC)', 'abc\u001b7123\u001b8X', 'abcX23'],
    ['a cursor saved and restored (SCOSC/SCORC)', 'abc\u001b[s123\u001b[uX', 'abcX23'],
    ['wide characters under a carriage return', '日本語\rab', 'ab本語'],
    ['a backspace onto a wide character', '日本\bx', '日 x'],
    ['a column after wide characters', '日本\u001b[6Gx', '日本 x'],
    ['the first column of an emoji overwritten', 'a😀b\u001b[3Dx', 'ax b'],
    ['the second column of an emoji overwritten', 'a😀b\u001b[2Dx', 'a xb'],
    ['an erase from inside a wide character', '日本語\u001b[4G\u001b[K', '日'],
    ['a deletion at a wide character', '日本語\r\u001b[2C\u001b[P', '日 語'],
    ['a cursor saved after wide characters', '日本\u001b7ab\u001b8X', '日本Xb'],
    [
      'an erase in display from the cursor (ED 0: prompt_toolkit clears a suggestion so)',
      'abcdef\u001b[3D\u001b[J',
      'abc',
    ],
    ['an erase in display up to the cursor (ED 1)', 'abcdef\u001b[3D\u001b[1J', '    ef'],
    ['an erase of the scrollback alone (ED 3)', 'abcdef\u001b[3J', 'abcdef'],
  ])('%s', async (_, input, expected) => {
    expect(lineView(input)).toBe(expected);
    expect(await xtermRow(input)).toBe(expected);
  });

  it('agrees with xterm.js on any mix of text, carriage returns, cursor moves, deletions, insertions and erasures', async () => {
    const step = fc.oneof(
      fc.stringMatching(/^[a-z]{1,6}$/),
      // Wide characters (CJK, full-width, an emoji in and beyond the BMP) and narrow ones beyond the BMP.
      fc
        .array(fc.constantFrom('日', '本', 'Ａ', '⌚', '😀', '🚀', '𝐀', 'é'), { minLength: 1, maxLength: 3 })
        .map((chars) => chars.join('')),
      fc.constant('\b'),
      fc.integer({ min: 1, max: 12 }).map((n) => `\u001b[${n}G`),
      fc.constant('\r'),
      fc.integer({ min: 1, max: 5 }).map((n) => `\u001b[${n}D`),
      fc.integer({ min: 1, max: 5 }).map((n) => `\u001b[${n}C`),
      fc.integer({ min: 1, max: 5 }).map((n) => `\u001b[${n}P`),
      fc.integer({ min: 1, max: 5 }).map((n) => `\u001b[${n}@`),
      fc.integer({ min: 1, max: 5 }).map((n) => `\u001b[${n}X`),
      fc.constantFrom('\u001b[K', '\u001b[1K', '\u001b[J', '\u001b[1J', '\u001b7', '\u001b8', '\u001b[s', '\u001b[u'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const input = steps.join('');
        expect({ input, line: lineView(input) }).toEqual({ input, line: await xtermRow(input) });
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out a deletion or insertion with more than a terminal row of the line after the cursor', () => {
    // Shifting the rest of a line up to the bound for every sequence would make a flood of them quadratic.
    const long = 'y'.repeat(MAX_TERMINAL_DIMENSION + 1);
    expect(lineView(`${long}\r\u001b[P\u001b[5@`)).toBe(long);
    // Within a row of the end, they apply.
    expect(lineView(`${long}\r\u001b[2C\u001b[P`)).toBe(long.slice(1));
  });
});
