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
export function skipPoint(text: string, cursor: { readonly row: number; readonly col: number }, size: TerminalSize): SkipPoint | undefined {
  const total = scrollsIn(text, cursor, size, Infinity);
  const skippable = total.scrolls - size.rows;
  if (skippable < 1) return undefined;
  const at = scrollsIn(text, cursor, size, skippable);
  return { index: at.index, row: size.rows - 1, col: 0 };
}

/** Models the cursor over the plain start of `text` until `stopAt` scrolls: how many, and where the last one left it. */
function scrollsIn(text: string, cursor: { readonly row: number; readonly col: number }, { rows, cols }: TerminalSize, stopAt: number): { scrolls: number; index: number } {
  let row = cursor.row;
  let col = cursor.col;
  let scrolls = 0;
  // After a scroll the cursor is at the start of the bottom row: `index` is the next character to feed from there.
  let index = 0;
  const newLine = (next: number): boolean => {
    col = 0;
    if (row < rows - 1) {
      row++;
      return false;
    }
    scrolls++;
    index = next;
    return scrolls >= stopAt;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      // xterm wraps when a character is printed with the cursor past the last column (a pending wrap).
      if (col >= cols && newLine(i)) break;
      col++;
    } else if (c === 0x0a) {
      if (newLine(i + 1)) break;
    } else if (c === 0x0d) col = 0;
    else if (c === 0x08) col = Math.max(Math.min(col, cols - 1) - 1, 0);
    else if (c === 0x07 || c === 0x7f) continue;
    else if (c === ESC) {
      SGR.lastIndex = i;
      if (!SGR.test(text)) break;
      i = SGR.lastIndex - 1;
    } else break;
  }
  return { scrolls, index };
}
