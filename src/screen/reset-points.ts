/**
 * Where in raw terminal output the screen starts over, so an emulator that fell behind the kept output can be
 * restarted there.
 */

import type { RawChunk } from '../buffer/raw-tail.js';

/** What a fresh emulator is fed first to be on the alternate screen the program is known to be on. */
export const ENTER_ALTERNATE_SCREEN = '\x1b[?1049h';
/** Alternate screen on/off: xterm's 1049 (saves the cursor), 1047, and the original 47. */
const ALT_SCREEN_TOGGLE = /\x1b\[\?(?:1049|1047|47)([hl])/g;
/** The same, or a full reset (`ESC c`), which leaves the alternate screen too: what sets which screen shows. */
const SCREEN_STATE_CHANGE = /\x1b\[\?(?:1049|1047|47)([hl])|\x1bc/g;
/**
 * Sequences that print nothing (CSI: modes, colors, erases of what is blank anyway), then an absolute cursor move
 * (CUP, HVP) or a full reset, from a given index on. Switching to the alternate screen, and clearing the screen,
 * keep the cursor where it was: what a program writes after them lands where it does only if one of these placed
 * the cursor before anything was written.
 */
const PLACED_NEXT = /(?:\x1b\[[0-9;?<=>]*[ -/]*[@-~])*?(?:\x1b\[[0-9;]*[Hf]|\x1bc)/y;
/** Erase the whole screen (`ESC [ 2 J`) or a full reset (`ESC c`, RIS). */
const SCREEN_CLEAR = /\x1b\[2J|\x1bc/g;
const ERASE_SCREEN = '\x1b[2J';
/** A cursor placement that ends right where a clear begins (`ESC [ H ESC [ 2 J`, as `clear` writes it). */
const PLACED_BEFORE = /\x1b\[[0-9;]*[Hf]$/;
/** Longer than any placement PLACED_BEFORE is looked for in (a CUP to row and column 9999 is 12 characters). */
const PLACEMENT_LOOKBEHIND_CHARS = 32;

export interface AltToggle {
  readonly index: number;
  /** Just past the switch. */
  readonly end: number;
  readonly enter: boolean;
}

/** Whether the cursor is placed at `index`, before anything is written (see PLACED_NEXT). */
function placedAt(text: string, index: number): boolean {
  PLACED_NEXT.lastIndex = index;
  return PLACED_NEXT.test(text);
}

function lastMatch(pattern: RegExp, text: string, before: number): RegExpExecArray | undefined {
  pattern.lastIndex = 0;
  let last: RegExpExecArray | undefined;
  for (let m = pattern.exec(text); m !== null && m.index < before; m = pattern.exec(text)) last = m;
  return last;
}

/** The newest switch to or from the alternate screen that starts before `before`. */
export function lastAltToggle(text: string, before = text.length): AltToggle | undefined {
  const m = lastMatch(ALT_SCREEN_TOGGLE, text, before);
  return m === undefined ? undefined : { index: m.index, end: m.index + m[0].length, enter: m[1] === 'h' };
}

/**
 * The newest switch that changed the screen, given whether the program was on the alternate screen where `text`
 * starts (`initial`; undefined when unknown, and then a first switch counts). A switch to the screen already shown
 * does nothing in a terminal (xterm keeps the alternate screen's content), so it redraws nothing either.
 */
function lastAltSwitch(text: string, initial: boolean | undefined): AltToggle | undefined {
  SCREEN_STATE_CHANGE.lastIndex = 0;
  let state = initial;
  let last: AltToggle | undefined;
  for (let m = SCREEN_STATE_CHANGE.exec(text); m !== null; m = SCREEN_STATE_CHANGE.exec(text)) {
    // A full reset is a clear (see restartPoint), not a switch; after it the normal screen shows.
    if (m[1] === undefined) {
      state = false;
      continue;
    }
    const enter = m[1] === 'h';
    if (state !== enter) last = { index: m.index, end: m.index + m[0].length, enter };
    state = enter;
  }
  return last;
}

/**
 * Whether the program was on the alternate screen at index `at` of `text`, given whether it was where `text` starts
 * (undefined: not known, and then neither is the answer). Every switch and full reset that begins before `at` has
 * taken effect, one that `at` cuts in two included: text read from `at` shows only its end, which no pattern sees.
 */
export function alternateAt(text: string, at: number, initial: boolean | undefined): boolean | undefined {
  if (initial === undefined) return undefined;
  SCREEN_STATE_CHANGE.lastIndex = 0;
  let state = initial;
  for (let m = SCREEN_STATE_CHANGE.exec(text); m !== null && m.index < at; m = SCREEN_STATE_CHANGE.exec(text))
    state = m[1] === 'h';
  return state;
}

/**
 * One escape sequence from its ESC: CSI, a string (OSC, DCS, SOS, PM, APC) to its terminator or the next ESC, or a
 * two-character escape with its intermediates.
 */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])/y;

/**
 * How many characters from index `at` of `text` end an escape sequence begun before `at` (0 when none is cut
 * there): a fresh emulator fed from `at` would print them as text.
 */
export function cutSequenceTail(text: string, at: number): number {
  // (lastIndexOf takes a negative start as 0, where an ESC would be found at `at` itself.)
  const begun = at === 0 ? -1 : text.lastIndexOf('\x1b', at - 1);
  if (begun === -1) return 0;
  ESCAPE_SEQUENCE.lastIndex = begun;
  if (!ESCAPE_SEQUENCE.test(text)) return 0;
  return Math.max(ESCAPE_SEQUENCE.lastIndex - at, 0);
}

/**
 * Where the kept output begins after a loss, at absolute raw offset `offset` of the kept `chunk` holding it (the
 * buffer keeps that chunk whole): whether the program was on the alternate screen there, when known (then a switch in
 * the kept output to the screen already shown is known to change nothing: a program that enters the alternate screen
 * twice keeps what it drew between the two), how many kept characters end a sequence the cut went through, and
 * whether that sequence is still open (then every kept character is inside it, and so is what comes next).
 */
export function keptStart(
  chunk: RawChunk | undefined,
  offset: number,
): { alternate: boolean | undefined; skip: number; open: boolean } {
  if (chunk === undefined) return { alternate: undefined, skip: 0, open: false };
  const at = offset - chunk.start;
  if (at < chunk.carriedEnd) {
    // Inside a sequence that an earlier chunk began: it ends in this chunk or a later one, or has not ended.
    const open = chunk.alternateAtStart === undefined;
    return {
      alternate: open ? undefined : alternateAt(chunk.text, at, chunk.alternateAtStart),
      skip: chunk.carriedEnd - at,
      open,
    };
  }
  // Else the chunk itself shows what the cut is in.
  return {
    alternate: alternateAt(chunk.text, at, chunk.alternateAtStart),
    skip: cutSequenceTail(chunk.text, at),
    open: false,
  };
}

/** The newest whole-screen clear or full reset. */
function lastClear(text: string): number | undefined {
  return lastMatch(SCREEN_CLEAR, text, text.length)?.index;
}

/**
 * Where to restart at the clear at `clear`, and whether that makes the screen whole. A full reset homes the cursor;
 * `ESC [ 2 J` erases every row but leaves the cursor where it was, so a fresh emulator (cursor at the top left)
 * writes what follows at the right place only if the program placed the cursor: right before the clear (the restart
 * then begins at that placement) or after it, before writing anything.
 */
function clearPoint(text: string, clear: number): { index: number; incomplete: boolean } {
  if (!text.startsWith(ERASE_SCREEN, clear)) return { index: clear, incomplete: false };
  const before = PLACED_BEFORE.exec(text.slice(Math.max(clear - PLACEMENT_LOOKBEHIND_CHARS, 0), clear));
  if (before !== null) return { index: clear - before[0].length, incomplete: false };
  return { index: clear, incomplete: !placedAt(text, clear + ERASE_SCREEN.length) };
}

export interface RestartPoint {
  /** What redraws the screen there: a switch to the alternate screen, a clear, a switch back, or nothing found. */
  readonly kind: 'alternate' | 'clear' | 'left-alternate' | 'none';
  /** Index in the kept text to feed from. */
  readonly index: number;
  /** Put the fresh emulator on the alternate screen first (the program was there, and no switch is in the text). */
  readonly enterAlternate: boolean;
  /** No point found that makes the screen whole: what came before the kept text may still show. */
  readonly incomplete: boolean;
}

/**
 * Where to restart a fresh emulator in `text`, the kept output after some was lost. `alternateBefore` is whether the
 * program was on the alternate screen where `text` starts (as far as is known: it decides only when no switch is in
 * the text); `initial`, when known for sure, tells a switch that changed nothing from one that did.
 */
export function restartPoint(text: string, alternateBefore: boolean, initial?: boolean): RestartPoint {
  const toggle = lastAltSwitch(text, initial);
  const clear = lastClear(text);
  // On the alternate screen since a switch in the text: everything it shows was drawn after it, where the program
  // placed the cursor before writing (a fresh emulator's cursor is not where the program's was at the switch).
  if (toggle?.enter) {
    return { kind: 'alternate', index: toggle.index, enterAlternate: false, incomplete: !placedAt(text, toggle.end) };
  }
  if (toggle !== undefined) {
    // Back on the normal screen: whole only if it was cleared since; otherwise its saved content is lost.
    return clear !== undefined && clear > toggle.index
      ? { kind: 'clear', ...clearPoint(text, clear), enterAlternate: false }
      : { kind: 'left-alternate', index: toggle.index, enterAlternate: false, incomplete: true };
  }
  if (clear !== undefined) return { kind: 'clear', ...clearPoint(text, clear), enterAlternate: alternateBefore };
  return { kind: 'none', index: 0, enterAlternate: alternateBefore, incomplete: true };
}
