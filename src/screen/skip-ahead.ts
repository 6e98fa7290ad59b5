import type { TerminalSize } from './xterm.js';

/** Where feeding may start instead of at the beginning, and where the cursor is there. */
export interface SkipPoint {
  readonly index: number;
  readonly row: number;
  readonly col: number;
}

const ESC = 0x1b;
/** SGR (colors, bold …): moves no cursor and changes no mode the screen's text depends on. */
const SGR = /\x1b\[[0-9;:]*m/y;

/**
 * Where a backlog of plain output (printable ASCII, SGR, line feed, carriage return, backspace, BEL) can be entered
 * late without changing the screen it ends on: the point after which the screen has scrolled a whole screen height,
 * so nothing visible there survives, with the cursor position at that point. Found by a cheap cursor model over the
 * text (a character loop, far faster than the emulator's parser), for a terminal in xterm's defaults: auto-wrap on,
 * no insert mode, the whole screen as the scroll region, bare line feeds starting a new line (convertEol).
 * Undefined when the plain text does not scroll a screen height past a first scroll, or runs into anything else
 * (a non-ASCII character, whose width the model does not know, or any other control or escape sequence).
 */
export function skipPoint(
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
      col++;
    } else if (c === 0x0a) {
      col = 0;
      if (row < bottom) row++;
      else after[++scrolls % (rows + 1)] = i + 1;
    } else if (c === 0x0d) col = 0;
    else if (c === 0x08) col = Math.max(Math.min(col, cols - 1) - 1, 0);
    else if (c === 0x07 || c === 0x7f) continue;
    else if (c === ESC) {
      SGR.lastIndex = i;
      if (!SGR.test(text)) break;
      i = SGR.lastIndex - 1;
    } else break;
  }
  const skippable = scrolls - rows;
  if (skippable < 1) return undefined;
  return { index: after[skippable % (rows + 1)]!, row: bottom, col: 0 };
}
