import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { createTerminal } from '../../src/screen/xterm.js';

/** Every row of an xterm.js terminal (the screen view's emulator) after `input`, trailing blanks and empty rows trimmed. */
function xtermRows(input: string, rows = 40, cols = 80): Promise<string[]> {
  const terminal = createTerminal({ rows, cols });
  return new Promise((resolve) => {
    terminal.write(input, () => {
      const shown: string[] = [];
      for (let y = 0; y < rows; y++)
        shown.push(terminal.buffer.active.getLine(y)?.translateToString(true).trimEnd() ?? '');
      while (shown.at(-1) === '') shown.pop();
      terminal.dispose();
      resolve(shown);
    });
  });
}

/** The lines of `chunks` in the line view, the unfinished one included, trailing blanks trimmed as a row is. */
function lineView(chunks: readonly string[]): string[] {
  const renderer = new LineRenderer();
  const lines = chunks.flatMap((chunk) => renderer.push(chunk));
  return [...lines, renderer.partial()]
    .map((line) => line.trimEnd())
    .filter((line, i, all) => i < all.length - 1 || line !== '');
}

// prompt_toolkit (IPython, ptpython, pgcli) reserves rows below its prompt with a CRLF each, then moves back up over
// them in the same write: a terminal's cursor goes back to the prompt's row, and so does the line view's now.
describe('a cursor moved back up over the empty rows a chunk just made', () => {
  it.each([
    [
      'onto the prompt, past a blank current line',
      `In [2]:\r\n${'\r\n'.repeat(15)} \b\x1b[16A\x1b[8Cprint(1)\r\n2\r\n`,
      ['In [2]: print(1)', '2'],
    ],
    ['onto an empty row among them', `a\r\n\r\n\r\n\r\n\x1b[2Ab\r\n`, ['a', '', 'b']],
    ['row by row, CSI 0A as one', 'a\r\n\r\n\x1b[0A\x1b[Ac\r\n', ['c']],
    ['by CSI F, to column 0', 'p>\r\n\r\n\x1b[2F\x1b[3Cz\r\n', ['p> z']],
    ['onto a line of wide characters and an emoji', '日本😀:\r\n\r\n\x1b[2A\x1b[6Cx\r\n', ['日本😀x']],
  ])('%s', async (_, input, expected) => {
    expect(lineView([input])).toEqual(expected);
    expect(await xtermRows(input)).toEqual(expected);
  });

  it('moves nowhere when a line log has no row to go to: over rows with text, past the held rows, from a row with text', () => {
    // A terminal would overwrite rows above; a line log keeps each line as it was finished (as before).
    expect(lineView(['a\r\nb\r\n\x1b[2Ac\r\n'])).toEqual(['a', 'b', 'c']);
    expect(lineView(['x\r\n\r\n\x1b[5Ay\r\n'])).toEqual(['x', '', 'y']);
    expect(lineView(['a\r\n\r\nb\x1b[2Ac\r\n'])).toEqual(['a', '', 'bc']);
    // Rows a chunk before finished are read already: the move is dropped.
    expect(lineView(['In:\r\n\r\n', '\x1b[2Ay\r\n'])).toEqual(['In:', '', 'y']);
    // On the alternate screen nothing reaches the lines at all.
    expect(lineView(['a\r\n\x1b[?1049h\r\n\x1b[2Ab\x1b[?1049l'])).toEqual(['a']);
  });

  it("IPython's own session gives the lines its screen shows, as a terminal (xterm.js) shows them", async () => {
    const fixture = JSON.parse(readFileSync(join(__dirname, '../fixtures/ipython-session.json'), 'utf8')) as {
      rows: number;
      cols: number;
      raw: string;
    };
    const buffer = new OutputBuffer();
    buffer.append(fixture.raw);
    const lines = buffer.page(0, buffer.retainedLines).map((line) => line.text.trimEnd());
    // The unfinished last line is a line of the page too.
    expect(lines).toEqual(await xtermRows(fixture.raw, fixture.rows, fixture.cols));
    expect(lines.filter((line) => line === '')).toHaveLength(7);
    expect(lines).toContain('In [2]: print(x + 1)');
    // The history's suggestion, shown greyed after `a` and cleared on Enter (ED), is not taken for what ran.
    expect(lines).toContain('In [4]: a');
  });
});
