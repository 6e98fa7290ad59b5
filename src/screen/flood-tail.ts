import { modesPrelude, printsLikeFresh, restorable } from '../buffer/terminal-modes.js';
import { ENTER_ALTERNATE_SCREEN } from './reset-points.js';
import type { ScreenSource } from './screen-source.js';
import { skipPointFromTail } from './skip-ahead.js';
import { plainDefaults, type TerminalSize, type XtermTerminal } from './xterm.js';

/** Rows of the newest plain output read for a screen during a flood: 2 × rows + 2 must follow the row edge entered at. */
const plainTailRows = (rows: number): number => 2 * rows + 4;
/** Colored lines hold more characters than columns: their tail gets this many times the room, for the same rows. */
const COLORED_TAIL_ROOM = 2;

/** Where a screen's emulator stands when it is asked for: what the flood tail decides from. */
export interface EmulatorState {
  /** The emulator so far, if one was made. */
  readonly terminal: XtermTerminal | undefined;
  /** The absolute raw offset it was fed to (0 before any emulator). */
  readonly fedTo: number;
  /** The size a fresh emulator gets. */
  readonly size: TerminalSize;
  /** Backlogs shorter than this are fed whole (the general way). */
  readonly skipFromChars: number;
}

/** What to feed, up to raw offset `end`: the emulator so far goes on, or a fresh one starts (whole or not). */
export type FloodTail =
  | { readonly kind: 'go-on'; readonly terminal: XtermTerminal; readonly text: string; readonly end: number }
  | { readonly kind: 'fresh'; readonly text: string; readonly end: number; readonly incomplete: boolean };

/**
 * A screen read during a flood of text (printable characters, line feeds and colors, as the buffer knows per chunk
 * at no cost) reads only the newest few screens of it: no switch, clear, mode or cursor move can be in the
 * backlog, so the screen is its last rows, entered at a row edge found from the end (skip-ahead.ts). Nothing else
 * of the megabyte kept is joined or scanned. Undefined when that does not apply; the general way then gives the
 * same rows.
 *
 * A flood that outruns the kept output between two reads has dropped some before the emulator saw it. When what
 * was dropped was only text too, it changed no state, and the tail scrolls all of it off: the emulator goes on as
 * if fed every byte, and the screen stays whole. (Starting a fresh emulator at every read of such a flood cost
 * about 1.5 ms of host CPU a read, and called a complete screen incomplete.) The tail must then show where its
 * first line began, since the dropped output took the cursor's column with it.
 *
 * Columns are counted by characters only over plain output (printable ASCII): past a color or a wide character
 * they are not, so then the tail starts at the start of a line it holds.
 *
 * Reads the emulator's state, changes nothing: the caller makes the fresh emulator when one is asked for.
 */
export function floodTail(source: ScreenSource, state: EmulatorState): FloodTail | undefined {
  const { fedTo } = state;
  const end = source.totalRawChars;
  const from = Math.max(fedTo, source.rawStart);
  if (end - from < state.skipFromChars || !source.onlyTextFrom(from)) return undefined;
  // Characters are columns from `from` on (and the emulator's cursor counts for a line it began).
  const plain = source.plainFrom(from);
  const lost = from > fedTo;
  // Before any emulator, fedTo is 0: then all output ever was only text, as a fresh emulator assumes.
  const lostText = lost && source.onlyTextFrom(fedTo);
  let current = state.terminal !== undefined && (!lost || lostText) ? state.terminal : undefined;
  if (current !== undefined && !plainDefaults(current)) {
    if (!lost) return undefined;
    // Its modes are the program's, a fresh emulator's are not: a restart, as for any other loss.
    current = undefined;
  }
  const size = current === undefined ? state.size : { rows: current.rows, cols: current.cols };
  const room = plainTailRows(size.rows) * (size.cols + 1) * (plain ? 1 : COLORED_TAIL_ROOM);
  let tailFrom = Math.max(from, end - room);
  // Where the line the tail begins in started, which places its row edges: after a line feed (the tail then starts
  // there unless columns can be counted, or at the first line start it holds when none is kept before it); else,
  // along plain output with no line feed since the emulator's offset (dropped output included), where its
  // cursor's line began (a fresh one's offset is 0, at column 0). Else it is not known: a restart, fed from `from`
  // as if at column 0.
  const lineFeed = source.lastRawLineFeedBefore(tailFrom);
  let lineKnown = true;
  let lineStart: number;
  let text: string | undefined;
  if (lineFeed >= from) {
    lineStart = lineFeed + 1;
    if (!plain) tailFrom = lineStart;
  } else if (!plain) {
    // No line start kept before the tail: it starts at the first one it holds.
    const held = source.rawSince(tailFrom).text;
    const first = held.indexOf('\n') + 1;
    if (first === 0) return undefined;
    text = held.slice(first);
    tailFrom += first;
    lineStart = tailFrom;
  } else if (
    (current !== undefined || state.terminal === undefined) &&
    (!lost || (source.plainFrom(fedTo) && source.noLineFeedFrom(fedTo)))
  ) {
    lineStart = fedTo - (current === undefined ? 0 : current.buffer.active.cursorX);
  } else {
    lineKnown = false;
    current = undefined;
    lineStart = from;
  }
  text ??= source.rawSince(tailFrom).text;
  // The whole backlog is only text (onlyTextFrom): nothing before the tail needs a look.
  const point = skipPointFromTail(text, (tailFrom - lineStart) % size.cols, size, () => true);
  if (point === undefined) return undefined;
  const entered = `\x1b[${point.row + 1};${point.col + 1}H${text.slice(point.index)}`;
  if (current !== undefined) return { kind: 'go-on', terminal: current, text: entered, end };
  // A fresh emulator is given the modes set before the tail (terminal-modes.ts), the dropped output's included; the
  // tail is entered as above only where they print text as a fresh terminal's do. Else the general way restarts.
  const at = source.modesAt(from);
  const alternate = source.alternateScreen;
  if (at === undefined || !printsLikeFresh(at.modes, alternate)) return undefined;
  // As restartPoint says of plain output: nothing in it redraws the whole screen. A fresh emulator fed from the very
  // start, or past dropped output that was all text, misses nothing, if the tail's first line is placed right.
  const whole = from === 0 || (lostText && state.terminal === undefined && lineKnown);
  // (From the very start, all output is text: no switch to the alternate screen is in it.)
  const prefix = modesPrelude(at.modes, alternate ? ENTER_ALTERNATE_SCREEN : undefined);
  const restored = restorable(at.modes, alternate ? 'alternate' : 'normal');
  return { kind: 'fresh', text: prefix + entered, end, incomplete: !whole || !restored };
}
