import { MAX_WINDOW_TITLE_CHARS } from '../limits.js';

const SEMICOLON = 0x3b;
/** OSC 0 sets the window title and the icon name, OSC 2 the title. */
const TITLE_IDS: ReadonlySet<number> = new Set([0, 2]);

const NO_UNITS = new Uint16Array(0);

const enum Phase {
  Id,
  Title,
  /** Another OSC, or one xterm.js drops (a non-digit in its identifier). */
  Other,
}

/**
 * An OSC sequence's identifier and, for a title, its text, read as xterm.js (the screen's emulator) reads them: the
 * digits before the first `;`, then printable characters (C0 controls are dropped). No `;`: an empty text.
 *
 * The last title is kept as units, and its string made only when asked for (lastTitle): a flood of titles (a prompt's,
 * every line) would otherwise make a string each, where a restart needs only the last.
 */
export class OscTitle {
  private phase = Phase.Id;
  private id = -1;
  /**
   * The units of the sequence being read, and of the last title it ended; swapped when a title ends. Made on the first
   * title (8 KiB each): most PTYs never set one.
   */
  private reading = NO_UNITS;
  private last = NO_UNITS;
  private length = 0;
  private lastLength = 0;
  private tooLong = false;
  private lastTooLong = false;

  start(): void {
    this.phase = Phase.Id;
    this.id = -1;
    this.length = 0;
    this.tooLong = false;
  }

  /** A unit of the sequence, its terminator excluded. */
  put(unit: number): void {
    if (this.phase === Phase.Id) {
      if (unit === SEMICOLON) this.phase = TITLE_IDS.has(this.id) ? Phase.Title : Phase.Other;
      else if (unit >= 0x30 && unit <= 0x39) this.id = Math.max(this.id, 0) * 10 + (unit - 0x30);
      else this.phase = Phase.Other;
    } else if (this.phase === Phase.Title && ((unit >= 0x20 && unit < 0x80) || unit >= 0xa0)) {
      if (this.length >= MAX_WINDOW_TITLE_CHARS) {
        this.tooLong = true;
        return;
      }
      if (this.reading === NO_UNITS) this.reading = new Uint16Array(MAX_WINDOW_TITLE_CHARS);
      this.reading[this.length++] = unit;
    }
  }

  /** The sequence ended well (BEL, ST or an ESC): whether it set a title, then the last one. */
  end(): boolean {
    if (this.phase === Phase.Other || (this.phase === Phase.Id && !TITLE_IDS.has(this.id))) return false;
    [this.reading, this.last] = [this.last, this.reading];
    this.lastLength = this.length;
    this.lastTooLong = this.tooLong;
    return true;
  }

  /** The last title set; undefined when it was longer than MAX_WINDOW_TITLE_CHARS. */
  lastTitle(): string | undefined {
    if (this.lastTooLong) return undefined;
    // apply, not a spread: a spread walks the typed array as an iterator, about 8 times as slow for a short title.
    return String.fromCharCode.apply(null, this.last.subarray(0, this.lastLength) as unknown as number[]);
  }
}
