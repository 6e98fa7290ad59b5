/**
 * The terminal state that a screen's restart must give a fresh emulator back: what survives a clear of the screen and
 * changes what later output shows (or which keys the program expects), set by sequences that may have been dropped
 * with the output before the restart point. Kept at ingest by the escape parser, as xterm.js (@xterm/headless 6, the
 * screen's emulator) takes each sequence, and given back as the sequences that set it (modesPrelude).
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
const FRESH_PRIVATE_BITS = PRIVATE_MODES.reduce((bits, [, fresh], i) => (fresh ? bits | (1 << i) : bits), 0);
const CURSOR_SHOWN_BIT = 1 << PRIVATE_MODES.findIndex(([mode]) => mode === 25);
/** ANSI mode 4: insert (IRM). */
const INSERT_MODE = 4;
/** DECANM set: xterm.js designates the US set in G0–G3. */
const ANSI_MODE = 2;
/** Saves the cursor (set) and restores it (reset), with the set printing uses. */
const SAVE_CURSOR_MODE = 1048;
/** The character sets xterm.js designates (its CHARSETS table); a designation of any other set does nothing there. */
const CHARSET_FINALS = '0AB4C5RQKYE6ZH7=';
/** The US set, what a fresh terminal has in every G level. */
const US = 'B';
/** The G level each designating intermediate sets, as xterm.js reads it (`/` designates nothing there). */
const G_LEVEL_OF: Readonly<Record<string, number>> = { '(': 0, ')': 1, '*': 2, '+': 3, '-': 1, '.': 2 };
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

const FRESH_SCREEN: ScreenModes = { region: undefined, tabs: 'fresh' };

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
  const bit = (mode: number) => (modes.privateBits & (1 << PRIVATE_MODES.findIndex(([m]) => m === mode))) !== 0;
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

/**
 * The modes as sequences change them, one event at a time (the escape parser calls it). `snapshot()` is the same
 * immutable object until something changes, so a buffer can keep one per chunk at the cost of a reference.
 */
export class ModeTracker {
  private privateBits: number;
  private insert: boolean;
  private readonly charsets: string[];
  private invoked: number;
  private printing: string;
  private normal: ScreenModes;
  private alternate: ScreenModes;
  private savedNormal: string | undefined;
  private savedAlternate: string | undefined;
  private title: string | undefined;
  /** Where a title set since the last snapshot is read from, its string not made yet (see setTitle). */
  private titleSource: { lastTitle(): string | undefined } | undefined;
  private onAlternate = false;
  private current: TerminalModes | undefined;
  /** Per screen, whether a cursor was saved there since this tracker began (see restoredEarlierSave). */
  private savedSinceStart = { normal: false, alternate: false };
  /** A cursor restore brought back a cursor saved before this tracker began: where it is is not known here. */
  restoredEarlierSave = false;

  constructor(from: TerminalModes = FRESH_MODES, onAlternate = false) {
    this.privateBits = from.privateBits;
    this.insert = from.insert;
    this.charsets = [...from.charsets];
    this.invoked = from.invoked;
    this.printing = from.printing;
    this.normal = from.normal;
    this.alternate = from.alternate;
    this.savedNormal = from.savedNormal;
    this.savedAlternate = from.savedAlternate;
    this.title = from.title;
    this.onAlternate = onAlternate;
    this.current = from;
  }

  snapshot(): TerminalModes {
    if (this.titleSource !== undefined) {
      this.title = this.titleSource.lastTitle();
      this.titleSource = undefined;
    }
    this.current ??= {
      privateBits: this.privateBits,
      insert: this.insert,
      charsets: [...this.charsets],
      invoked: this.invoked,
      printing: this.printing,
      normal: this.normal,
      alternate: this.alternate,
      savedNormal: this.savedNormal,
      savedAlternate: this.savedAlternate,
      title: this.title,
    };
    return this.current;
  }

  /** DECSET / DECRST of `mode` (the parser calls switchScreen for the alternate screen's, in the list's order). */
  privateMode(mode: number, set: boolean): void {
    const index = PRIVATE_MODES.findIndex(([m]) => m === mode);
    if (index !== -1) {
      const bits = set ? this.privateBits | (1 << index) : this.privateBits & ~(1 << index);
      if (bits !== this.privateBits) this.change(() => (this.privateBits = bits));
    } else if (mode === ANSI_MODE && set) {
      this.change(() => {
        this.charsets.fill(US);
        this.printing = US;
      });
    } else if (mode === SAVE_CURSOR_MODE) {
      if (set) this.saveCursor();
      else this.restoreCursor();
    }
  }

  /** A switch to the alternate screen or back (47, 1047, 1049: `saves` for 1049, which saves and restores the cursor). */
  switchScreen(enter: boolean, saves: boolean): void {
    if (enter) {
      if (saves) this.saveCursor();
      this.onAlternate = true;
      return;
    }
    if (!this.onAlternate) {
      if (saves) this.restoreCursor();
      return;
    }
    // xterm.js clears the alternate screen as it leaves it: its region and tab stops with it.
    this.change(() => (this.alternate = FRESH_SCREEN));
    this.onAlternate = false;
    if (saves) this.restoreCursor();
  }

  /**
   * OSC 0 or 2: a window title, read from `source` when a snapshot is taken (the last title it holds then): a flood of
   * titles makes one string per chunk, not one per title.
   */
  setTitle(source: { lastTitle(): string | undefined }): void {
    this.titleSource = source;
    this.current = undefined;
  }

  /**
   * The terminal was resized: xterm.js makes both screens' scroll regions whole again, and sets tab stops anew from
   * the last one before the new width, which leaves any but a fresh set unknown here.
   */
  resized(): void {
    const after = (screen: ScreenModes): ScreenModes =>
      screen.region === undefined && screen.tabs === 'fresh'
        ? screen
        : { region: undefined, tabs: screen.tabs === 'fresh' ? 'fresh' : 'unknown' };
    const [normal, alternate] = [after(this.normal), after(this.alternate)];
    if (normal !== this.normal || alternate !== this.alternate) {
      this.change(() => {
        this.normal = normal;
        this.alternate = alternate;
      });
    }
  }

  /** ANSI SM / RM (`CSI 4 h`). */
  mode(mode: number, set: boolean): void {
    if (mode === INSERT_MODE && set !== this.insert) this.change(() => (this.insert = set));
  }

  /** DECSTBM with `count` parameters: `top` and `bottom` (-1 without digits). */
  scrollRegion(count: number, top: number, bottom: number): void {
    // xterm.js ignores a region whose bottom is not below its top; one it may clamp to its rows is kept as written.
    if (count >= 2 && bottom > 0 && bottom <= Math.max(top, 1)) return;
    const whole = top <= 1 && (count < 2 || bottom <= 0);
    const region = whole ? undefined : `${Math.max(top, 0)}${count >= 2 ? `;${Math.max(bottom, 0)}` : ''}`;
    this.changeScreen({ region });
  }

  /** TBC (`CSI Ps g`): 3 clears every stop, 0 (the default) the one at the cursor. */
  tabClear(param: number): void {
    if (param === 3) this.changeScreen({ tabs: 'cleared' });
    else if (param <= 0 && this.screen().tabs !== 'cleared') this.changeScreen({ tabs: 'unknown' });
  }

  /** HTS: a stop at the cursor's column. */
  tabSet(): void {
    this.changeScreen({ tabs: 'unknown' });
  }

  /** ESC with one intermediate and a final: a charset designation, or `ESC % @` / `ESC % G` (the US set in G0). */
  designate(intermediate: string, final: string): void {
    if (intermediate === '%') {
      if (final === '@' || final === 'G') this.change(() => this.setCharset(0, US, 0));
      return;
    }
    const level = G_LEVEL_OF[intermediate];
    if (level === undefined || !CHARSET_FINALS.includes(final)) return;
    this.change(() => this.setCharset(level, final, this.invoked));
  }

  /** SI, SO, LS2, LS3 and their right-hand forms, as xterm.js takes them: a G level into GL. */
  invoke(level: number): void {
    this.change(() => {
      this.invoked = level;
      this.printing = this.charsets[level] as string;
    });
  }

  saveCursor(): void {
    if ((this.onAlternate ? this.savedAlternate : this.savedNormal) !== this.printing) {
      this.change(() => {
        if (this.onAlternate) this.savedAlternate = this.printing;
        else this.savedNormal = this.printing;
      });
    }
    this.savedSinceStart[this.onAlternate ? 'alternate' : 'normal'] = true;
  }

  restoreCursor(): void {
    const saved = this.onAlternate ? this.savedAlternate : this.savedNormal;
    if (saved !== undefined && !this.savedSinceStart[this.onAlternate ? 'alternate' : 'normal'])
      this.restoredEarlierSave = true;
    const printing = saved ?? US;
    if (printing !== this.printing) this.change(() => (this.printing = printing));
  }

  /** DECSTR (`CSI ! p`), as xterm.js does it: modes and charsets as fresh, the shown screen's region whole. */
  softReset(): void {
    this.change(() => {
      this.privateBits = FRESH_PRIVATE_BITS;
      this.insert = false;
      this.charsets.fill(US);
      this.invoked = 0;
      this.printing = US;
      // The cursor saved on the screen shown is reset with them (xterm.js: "reset DECSC data"): home, the US set.
      if (this.onAlternate) this.savedAlternate = undefined;
      else this.savedNormal = undefined;
    });
    this.changeScreen({ region: undefined });
  }

  /** RIS (`ESC c`): everything as fresh, on the normal screen, but a hidden cursor (xterm.js keeps it hidden). */
  fullReset(): void {
    this.change(() => {
      this.privateBits = (FRESH_PRIVATE_BITS & ~CURSOR_SHOWN_BIT) | (this.privateBits & CURSOR_SHOWN_BIT);
      this.insert = false;
      this.charsets.fill(US);
      this.invoked = 0;
      this.printing = US;
      this.normal = FRESH_SCREEN;
      this.alternate = FRESH_SCREEN;
      this.savedNormal = undefined;
      this.savedAlternate = undefined;
    });
    this.onAlternate = false;
  }

  private setCharset(level: number, set: string, invoked: number): void {
    this.charsets[level] = set;
    this.invoked = invoked;
    if (level === invoked) this.printing = set;
  }

  private screen(): ScreenModes {
    return this.onAlternate ? this.alternate : this.normal;
  }

  private changeScreen(change: Partial<ScreenModes>): void {
    const next = { ...this.screen(), ...change };
    this.change(() => {
      if (this.onAlternate) this.alternate = next;
      else this.normal = next;
    });
  }

  private change(apply: () => void): void {
    apply();
    this.current = undefined;
  }
}
