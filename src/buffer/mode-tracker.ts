import {
  FRESH_MODES,
  FRESH_PRIVATE_BITS,
  FRESH_SCREEN,
  INSERT_MODE,
  privateModeBit,
  type ScreenModes,
  type TerminalModes,
  US,
} from './terminal-modes.js';

/** DECANM set: xterm.js designates the US set in G0–G3. */
const ANSI_MODE = 2;
/** Saves the cursor (set) and restores it (reset), with the set printing uses. */
const SAVE_CURSOR_MODE = 1048;
/** DECTCEM: a full reset keeps it as it was in xterm.js. */
const CURSOR_SHOWN_BIT = privateModeBit(25) as number;
/** The character sets xterm.js designates (its CHARSETS table); a designation of any other set does nothing there. */
const CHARSET_FINALS = '0AB4C5RQKYE6ZH7=';
/** The G level each designating intermediate sets, as xterm.js reads it (`/` designates nothing there). */
const G_LEVEL_OF: Readonly<Record<string, number>> = { '(': 0, ')': 1, '*': 2, '+': 3, '-': 1, '.': 2 };

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

  /** Whether the program is on the alternate screen, from every switch and full reset it wrote. */
  get alternateScreen(): boolean {
    return this.onAlternate;
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
    const bit = privateModeBit(mode);
    if (bit !== undefined) {
      const bits = set ? this.privateBits | bit : this.privateBits & ~bit;
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
