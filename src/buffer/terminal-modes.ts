/**
 * The terminal state that a screen's restart must give a fresh emulator back: what survives a clear of the screen and
 * changes what later output shows (or which keys the program expects), set by sequences that may have been dropped
 * with the output before the restart point. Followed at ingest by the escape parser (mode-tracker.ts), as xterm.js
 * (@xterm/headless 6, the screen's emulator) takes each sequence, and given back as the sequences that set it
 * (modesPrelude).
 */

/** The DEC private modes kept, with the value a fresh terminal has: cursor keys, origin, auto-wrap, cursor shown, reverse wrap, keypad. */
const PRIVATE_MODES: readonly (readonly [mode: number, fresh: boolean])[] = [
  [1, false],
  [6, false],
  [7, true],
  [25, true],
  [45, false],
  [66, false],
];

/** The bit of a kept private mode in TerminalModes.privateBits; undefined for a mode not kept. */
export function privateModeBit(mode: number): number | undefined {
  const index = PRIVATE_MODES.findIndex(([m]) => m === mode);
  return index === -1 ? undefined : 1 << index;
}

export const FRESH_PRIVATE_BITS = PRIVATE_MODES.reduce((bits, [, fresh], i) => (fresh ? bits | (1 << i) : bits), 0);

/** ANSI mode 4: insert (IRM). */
export const INSERT_MODE = 4;
/** The US set, what a fresh terminal has in every G level. */
export const US = 'B';
const DESIGNATE = ['(', ')', '*', '+'] as const;
/** What invokes each G level into GL: SI, SO, LS2, LS3. */
const INVOKE = ['\x0f', '\x0e', '\x1bn', '\x1bo'] as const;

/** Tab stops: as a fresh terminal has them, all cleared (`CSI 3 g`), or set or cleared at a column not known here. */
export type TabStops = 'fresh' | 'cleared' | 'unknown';

/** What each screen keeps of its own (xterm.js keeps a scroll region and tab stops per screen). */
export interface ScreenModes {
  /** The scroll region's DECSTBM parameters as written (`2;10`), undefined for the whole screen. */
  readonly region: string | undefined;
  readonly tabs: TabStops;
}

export interface TerminalModes {
  /** One bit per PRIVATE_MODES entry: set. */
  readonly privateBits: number;
  readonly insert: boolean;
  /** The set designated in each G level. */
  readonly charsets: readonly string[];
  /** The G level invoked into GL. */
  readonly invoked: number;
  /** The set printing uses: the invoked level's, unless a cursor restore brought back another. */
  readonly printing: string;
  readonly normal: ScreenModes;
  readonly alternate: ScreenModes;
  /**
   * Per screen, the set printing used when the cursor was last saved there (DECSC, `CSI s`, 1048, 1049), which a
   * restore brings back with the cursor; undefined while none is saved (a restore then brings back the US set, home).
   */
  readonly savedNormal: string | undefined;
  readonly savedAlternate: string | undefined;
  /** The window title the program set last ('' for none); undefined when too long to keep (MAX_WINDOW_TITLE_CHARS). */
  readonly title: string | undefined;
}

export const FRESH_SCREEN: ScreenModes = { region: undefined, tabs: 'fresh' };

export const FRESH_MODES: TerminalModes = {
  privateBits: FRESH_PRIVATE_BITS,
  insert: false,
  charsets: [US, US, US, US],
  invoked: 0,
  printing: US,
  normal: FRESH_SCREEN,
  alternate: FRESH_SCREEN,
  savedNormal: undefined,
  savedAlternate: undefined,
  title: '',
};

/**
 * Whether modesPrelude brings a fresh emulator to `modes` in full, for what `screen` shows (undefined: a screen entered
 * afresh, whose own modes are a fresh one's): not when its tab stops were set at columns not known here, or when the
 * set printing uses is one that no designation and invocation reproduce (a cursor restore brought back another).
 */
export function restorable(modes: TerminalModes, screen: 'normal' | 'alternate' | undefined): boolean {
  if (modes.printing !== modes.charsets[modes.invoked]) return false;
  return screen === undefined || modes[screen].tabs !== 'unknown';
}

/**
 * Whether text printed with `modes` on the `alternate` screen or not moves the cursor as a fresh terminal's does
 * (skip-ahead.ts's model): auto-wrap on, neither insert nor reverse wrap, and the whole screen scrolling.
 */
export function printsLikeFresh(modes: TerminalModes, alternate: boolean): boolean {
  const bit = (mode: number) => (modes.privateBits & (privateModeBit(mode) as number)) !== 0;
  return bit(7) && !bit(45) && !modes.insert && (alternate ? modes.alternate : modes.normal).region === undefined;
}

/**
 * The sequences that bring a fresh emulator to `modes` (as far as restorable says), on the normal screen, then, given
 * `enterAlternate` (the sequence that enters it), on the alternate screen.
 */
export function modesPrelude(modes: TerminalModes, enterAlternate?: string): string {
  let prelude = '';
  PRIVATE_MODES.forEach(([mode, fresh], i) => {
    const set = (modes.privateBits & (1 << i)) !== 0;
    if (set !== fresh) prelude += `\x1b[?${mode}${set ? 'h' : 'l'}`;
  });
  if (modes.insert) prelude += `\x1b[${INSERT_MODE}h`;
  modes.charsets.forEach((set, level) => {
    if (set !== US) prelude += `\x1b${DESIGNATE[level]}${set}`;
  });
  if (modes.invoked !== 0) prelude += INVOKE[modes.invoked];
  // The title last, so that a restart shows it (BEL and ESC, which end it, cannot be in it).
  prelude += screenPrelude(modes.normal);
  if (modes.title) prelude += `\x1b]2;${modes.title}\x07`;
  if (enterAlternate !== undefined) prelude += enterAlternate + screenPrelude(modes.alternate);
  return prelude;
}

function screenPrelude(screen: ScreenModes): string {
  return (screen.region === undefined ? '' : `\x1b[${screen.region}r`) + (screen.tabs === 'cleared' ? '\x1b[3g' : '');
}
