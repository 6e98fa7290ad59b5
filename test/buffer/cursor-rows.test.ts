import { CursorRows } from '../../src/buffer/cursor-rows.js';
import type { LineSink } from '../../src/buffer/line-renderer.js';

/** A sink that records the lines it is handed, runs split into their lines. */
function recorder(): { sink: LineSink; lines: string[] } {
  const lines: string[] = [];
  const sink: LineSink = {
    line: (text) => lines.push(text),
    lines: (input, from, to) => lines.push(...input.slice(from, to - 1).split('\n')),
  };
  return { sink, lines };
}

/** Finishes each text as a line of its own, as a program printing `text\n` does. */
function print(rows: CursorRows, sink: LineSink, ...texts: string[]): void {
  for (const text of texts) {
    rows.line.put(text);
    rows.finishLine(sink);
  }
  rows.release(sink);
}

const SIZE = { rows: 5, cols: 20 };

describe('CursorRows: the rows a line log can name and the cursor among them', () => {
  it('a row drawn again as the log holds it adds nothing; drawn otherwise, it is a line of its own', () => {
    const rows = new CursorRows(1_000, SIZE);
    const { sink, lines } = recorder();
    print(rows, sink, 'one', 'two');
    expect(rows.up(2, sink)).toBe(true);
    expect(rows.onBottom).toBe(false);
    expect(rows.line.partial()).toBe('one');
    rows.line.carriageReturn();
    rows.line.put('one');
    rows.finishLine(sink);
    expect(rows.line.partial()).toBe('two');
    rows.line.carriageReturn();
    rows.line.put('TWO');
    rows.finishLine(sink);
    expect(rows.onBottom).toBe(true);
    expect(lines).toEqual(['one', 'two', 'TWO']);
  });

  it('drops a move up past the rows it holds, and a move down below the unfinished line', () => {
    const rows = new CursorRows(1_000, SIZE);
    const { sink, lines } = recorder();
    print(rows, sink, 'only');
    expect(rows.down(1, sink)).toBe(false);
    expect(rows.up(2, sink)).toBe(false);
    expect(rows.onBottom).toBe(true);
    expect(rows.up(1, sink)).toBe(true);
    expect(rows.down(3, sink)).toBe(true);
    expect(rows.onBottom).toBe(true);
    expect(lines).toEqual(['only']);
  });

  it('from a blank line, takes back a line this chunk finished over the empty rows after it', () => {
    const rows = new CursorRows(1_000, SIZE);
    const { sink, lines } = recorder();
    rows.line.put('>>> x');
    rows.finishLine(sink);
    rows.finishLine(sink);
    rows.finishLine(sink);
    expect(rows.up(3, sink)).toBe(true);
    expect(rows.onBottom).toBe(true);
    expect(rows.line.partial()).toBe('>>> x');
    rows.release(sink);
    expect(lines).toEqual([]);
  });

  it('forgets the rows above after a cleared screen, and knows none again until lines come', () => {
    const rows = new CursorRows(1_000, SIZE);
    const { sink, lines } = recorder();
    print(rows, sink, 'a', 'b');
    rows.line.put('partial');
    rows.cleared(sink);
    expect(lines).toEqual(['a', 'b', 'partial']);
    expect(rows.up(1, sink)).toBe(false);
    print(rows, sink, 'c');
    expect(rows.up(1, sink)).toBe(true);
  });

  it('at the end of the stream, settles a row being drawn again and completes the unfinished line', () => {
    const rows = new CursorRows(1_000, SIZE);
    const { sink, lines } = recorder();
    print(rows, sink, 'row');
    rows.line.put('bottom');
    expect(rows.up(1, sink)).toBe(true);
    rows.line.carriageReturn();
    rows.line.put('ROW');
    expect(rows.flush()).toEqual(['ROW', 'bottom']);
    expect(lines).toEqual(['row']);
  });
});
