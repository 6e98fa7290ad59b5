import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { xtermRows } from '../support/xterm-rows.js';

/** The lines of `chunks` in the line view, the unfinished one included, trailing blanks trimmed as a row is. */
function lineView(chunks: readonly string[], size?: { rows: number; cols: number }): string[] {
  const renderer = new LineRenderer(size ? { size } : {});
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

  it('moves nowhere when a line log has no row to go to: past the rows it can name, or on the alternate screen', () => {
    expect(lineView(['x\r\n\r\n\x1b[5Ay\r\n'])).toEqual(['x', '', 'y']);
    // A line wider than the screen (80 columns here) takes rows the log cannot count.
    expect(lineView([`${'w'.repeat(81)}\r\n\x1b[1Ay\r\n`], { rows: 24, cols: 80 })).toEqual(['w'.repeat(81), 'y']);
    // On the alternate screen nothing reaches the lines at all.
    expect(lineView(['a\r\n\x1b[?1049h\r\n\x1b[2Ab\x1b[?1049l'])).toEqual(['a']);
  });
});

// Over rows with text, and over rows finished by an earlier chunk (read already), the log holds each line as it was
// finished: a row drawn as it holds it adds nothing, a row drawn otherwise is a line of its own after them.
describe('a cursor moved up over rows the log already holds (RowsAbove)', () => {
  it.each([
    ['a row drawn otherwise, after the rows it was drawn over', ['a\r\nb\r\n\x1b[2Ac\r\n'], ['a', 'b', 'c']],
    ['from a line with text, which stays the unfinished one', ['a\r\n\r\nb\x1b[2Ac\r\n'], ['a', '', 'ac', 'b']],
    ['across chunks, in the column the cursor is in', ['In:\r\n\r\n', '\x1b[2Ay\r\n'], ['In:', '', 'yn:']],
    [
      "Node's REPL erasing its preview: the row drawn as it was adds nothing",
      ['> 1+1\r\n', '\x1b[90m2\x1b[39m\x1b[6G\x1b[1A\x1b[1B\x1b[2K\x1b[1A\r\r\n\x1b[33m2\x1b[39m\r\n> '],
      ['> 1+1', '2', '>'],
    ],
    [
      'rows erased below (ED 0) and left so, and the unfinished line erased with them',
      ['m\r\nitem 1\r\nitem 2', '\x1b[2A\r\x1b[Jm\r\n\r\ndone\r\n'],
      ['m', 'item 1', '', 'done'],
    ],
    [
      'a whole run of plain lines, once the program has moved its cursor up (RowsAbove.trackRuns)',
      ['\x1b[Aa\nb\nc\n', '\x1b[3A\ra\r\nb\r\nc!\r\n'],
      ['a', 'b', 'c', 'c!'],
    ],
    ['a run before any move up: the rows above it are not known', ['a\nb\n', '\x1b[2Ac\r\n'], ['a', 'b', 'c']],
  ])('%s', (_, chunks, expected) => {
    expect(lineView(chunks)).toEqual(expected);
  });

  it('knows no rows above plain lines kept as bytes (OutputBuffer.keepPlain), which pass the renderer by', () => {
    const buffer = new OutputBuffer();
    buffer.append('a\r\n');
    buffer.appendAscii(Buffer.from('x\ny\n'));
    // The row above is y's: were `a` still taken for it, this `a` would be its redraw and add nothing.
    buffer.append('\x1b[1Aa\r\n');
    expect(buffer.page(0, buffer.retainedLines).map((line) => line.text)).toEqual(['a', 'x', 'y', 'a']);
  });

  it('knows no rows above once the terminal is resized, which reflows them', () => {
    const buffer = new OutputBuffer({ size: { rows: 20, cols: 80 } });
    buffer.append('a\r\n');
    buffer.noteResize({ rows: 20, cols: 40 });
    buffer.append('\x1b[1Aa\r\n');
    expect(buffer.page(0, buffer.retainedLines).map((line) => line.text)).toEqual(['a', 'a']);
  });

  it.each([
    ["Node's REPL: the preview under each statement, erased", 'node-repl-chunks.json'],
    [
      "IPython's input wider than the screen, and a block of two lines, redrawn after each key",
      'ipython-redraw-chunks.json',
    ],
  ])('%s: the lines are the rows a terminal (xterm.js) shows, fed as the PTY read them', async (_, name) => {
    const fixture = JSON.parse(readFileSync(join(__dirname, '../fixtures', name), 'utf8')) as {
      rows: number;
      cols: number;
      chunks: string[];
    };
    const buffer = new OutputBuffer({ size: { rows: fixture.rows, cols: fixture.cols } });
    for (const chunk of fixture.chunks) buffer.append(chunk);
    const lines = buffer.page(0, buffer.retainedLines).map((line) => line.text.trimEnd());
    while (lines.at(-1) === '') lines.pop();
    expect(lines).toEqual(await xtermRows(fixture.chunks.join(''), fixture.rows, fixture.cols));
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
