import type { TerminalSize } from './xterm.js';

/** Where feeding may start instead of at the beginning, and where the cursor is there. */
export interface SkipPoint {
  readonly index: number;
  readonly row: number;
  readonly col: number;
  /** Found from the end of the text (see skipPoint), not by the loop over all of it: for tests and the curious. */
  readonly fromTail: boolean;
}

const ESC = 0x1b;
/** A tab moves to a tab stop along its row and never wraps: to the model, like a character of unknown width. */
const TAB = 0x09;
/** SGR (colors, bold …): moves no cursor and changes no mode the screen's text depends on. */
const SGR = /\x1b\[[0-9;:]*m/y;
/**
 * What the cursor model below does not follow (its `else break`), found in native code: a character outside its
 * set, or an escape that does not begin an SGR. Two scans, as one regex with the escape alternative ran at half
 * the speed of the plain class on escape-free text, the common flood. From U+00A0 on, xterm.js prints every code
 * unit (surrogates and combining marks included) and moves the cursor only along its row; U+0080–U+009F are C1
 * controls to it.
 */
const NOT_PLAIN_CHAR = /[^\x07\x08\x0a\x0d\x1b\x20-\x7f\u00a0-\uffff]/;
const NOT_SGR_ESCAPE = /\x1b(?!\[[0-9;:]*m)/;
const isPlain = (text: string): boolean =>
  !NOT_PLAIN_CHAR.test(text) && (!text.includes('\x1b') || !NOT_SGR_ESCAPE.test(text));
/** Anything but a printable ASCII character: a run without one advances the cursor exactly one column each. */
const NOT_PRINTABLE = /[^\x20-\x7e]/;
/** A character whose width the model does not know (0, 1 or 2 columns, as xterm.js's Unicode tables say). */
const NON_ASCII = /[^\x00-\x7f]/;
/** Every SGR sequence of a line: it takes no column. */
const SGRS = new RegExp(SGR.source, 'g');

/**
 * skipPoint, found from the end of a long backlog: the newest screens are worked out by the cursor model, and what
 * comes before them is only checked to hold nothing the model does not follow (one native regex pass), instead of
 * a JS loop over every character of it. Same answer as the loop (undefined when it would give none); a screen
 * read during a flood then costs about the newest screens, not the megabyte kept.
 */
export function skipPoint(
  text: string,
  cursor: { readonly row: number; readonly col: number },
  size: TerminalSize,
): SkipPoint | undefined {
  return skipPointFromTail(text, cursor.col, size, isPlain) ?? skipPointFrom(text, cursor, size);
}

/**
 * The skip point found from the end alone (see tailStart), or undefined: `startCol` is the column the text's first
 * character is written at; `skippable` must say that what comes before the tail holds nothing the cursor model
 * does not follow (a caller that knows the text is plain says so without a scan).
 */
export function skipPointFromTail(
  text: string,
  startCol: number,
  size: TerminalSize,
  skippable: (head: string) => boolean = isPlain,
): SkipPoint | undefined {
  const tail = tailStart(text, startCol, size);
  if (tail <= 0 || !skippable(text.slice(0, tail))) return undefined;
  // The row there is unknown: from the top row is the worst case (the most scrolls before the screen is new).
  const point = skipPointFrom(text.slice(tail), { row: 0, col: 0 }, size);
  return point === undefined ? undefined : { ...point, index: tail + point.index, fromTail: true };
}

/**
 * Where the cursor is at column 0 (after a line feed, or after whole rows of a line that wrapped) and at least two
 * screen heights of rows follow, going back from the end: lines by lastIndexOf, a long line cut at a row edge when
 * every character before the cut is printable. `startCol` is the column the text's first character is written at
 * (it places the row edges of a line that began before the text). 0 when there is no such place.
 */
function tailStart(text: string, startCol: number, { rows, cols }: TerminalSize): number {
  // From the worst-case row (the top), rows - 1 moves reach the bottom and rows + 1 scrolls more make a new screen.
  const need = 2 * rows + 2;
  let advances = 0;
  let end = text.length;
  for (;;) {
    const lf = end === 0 ? -1 : text.lastIndexOf('\n', end - 1);
    const start = lf + 1;
    const length = end - start;
    // A line with characters of unknown width is counted as one row, and a colored line by its length without its
    // colors. By code units, combining marks and a test runner's colors would count rows they do not take, and the
    // tail would hold too few for the model to find a point in.
    const line = text.slice(start, end);
    const columns = line.includes('\x1b') ? line.replace(SGRS, '').length : length;
    const wraps = NON_ASCII.test(line) ? 0 : Math.max(Math.ceil(columns / cols) - 1, 0);
    if (advances + wraps >= need) {
      // A long line: keep its last `need` rows; the rows before the cut hold only printable characters, so the cut
      // falls on a row edge (the first row of the line starts at `startCol` when it began before the text did).
      // The character at the cut must be printable too: the cursor there waits to wrap, and only a printable one
      // wraps it to the next row's start, where the model resumes. A backspace, CR or LF acts on the row it left.
      const firstRow = lf === -1 ? cols - Math.min(startCol, cols) : 0;
      const rowsBefore = Math.floor((length - firstRow) / cols) - need;
      if (rowsBefore < 1) return start;
      const cut = start + firstRow + rowsBefore * cols;
      return NOT_PRINTABLE.test(text.slice(start, cut + 1)) ? start : cut;
    }
    if (lf === -1) return 0;
    advances += wraps + 1;
    end = lf;
  }
}

/**
 * Where a backlog of plain output (printable characters, tabs, SGR, line feed, carriage return, backspace, BEL) can
 * be entered late without changing the screen it ends on: the point after which the screen has scrolled a whole
 * screen height, so nothing visible there survives, with the cursor position at that point. Found by a cheap cursor
 * model over the text (a character loop, far faster than the emulator's parser), for a terminal in xterm's
 * defaults: auto-wrap on, no insert mode, the whole screen as the scroll region, bare line feeds starting a new line
 * (convertEol). A non-ASCII character has a width the model does not know, and a tab moves to a stop: the column is
 * unknown after either until the next line feed or carriage return, and wraps in that stretch are not counted, so
 * the model's row and its count of scrolls never exceed the terminal's (its row stops at the bottom). A point is
 * taken only where both agree: after a line feed the model saw scroll. Undefined when the text does not scroll a
 * screen height past a first scroll, or runs into anything else (any other control or escape sequence).
 */
function skipPointFrom(
  text: string,
  cursor: { readonly row: number; readonly col: number },
  { rows, cols }: TerminalSize,
): SkipPoint | undefined {
  let row = cursor.row;
  let col = cursor.col;
  let scrolls = 0;
  // Where feeding resumes after each of the newest rows + 1 scrolls (the cursor then at the start of the bottom
  // row): one pass, and the point a screen height before the last scroll is still in the ring at the end.
  const after = new Int32Array(rows + 1);
  const bottom = rows - 1;
  const length = text.length;
  // The new-line step is written out twice rather than as a closure, so the counters stay in registers in this hot loop.
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      // xterm wraps when a character is printed with the cursor past the last column (a pending wrap).
      if (col >= cols) {
        col = 0;
        if (row < bottom) row++;
        else after[++scrolls % (rows + 1)] = i;
      }
      // An unknown column (-1) stays unknown.
      if (col >= 0) col++;
    } else if (c >= 0xa0 || c === TAB) col = -1;
    else if (c === 0x0a) {
      col = 0;
      if (row < bottom) row++;
      else after[++scrolls % (rows + 1)] = i + 1;
    } else if (c === 0x0d) col = 0;
    else if (c === 0x08) col = col < 0 ? col : Math.max(Math.min(col, cols - 1) - 1, 0);
    else if (c === 0x07 || c === 0x7f) continue;
    else if (c === ESC) {
      SGR.lastIndex = i;
      if (!SGR.test(text)) break;
      i = SGR.lastIndex - 1;
    } else break;
  }
  const skippable = scrolls - rows;
  if (skippable < 1) return undefined;
  return { index: after[skippable % (rows + 1)]!, row: bottom, col: 0, fromTail: false };
}
