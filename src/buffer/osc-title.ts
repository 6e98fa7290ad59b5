import { MAX_WINDOW_TITLE_CHARS } from '../limits.js';

const SEMICOLON = 0x3b;
/** OSC 0 sets the window title and the icon name, OSC 2 the title. */
const TITLE_IDS: ReadonlySet<number> = new Set([0, 2]);

const enum Phase {
  Id,
  Title,
  /** Another OSC, or one xterm.js drops (a non-digit in its identifier). */
  Other,
}

/**
 * An OSC sequence's identifier and, for a title, its text, read as xterm.js (the screen's emulator) reads them: the
 * digits before the first `;`, then printable characters (C0 controls are dropped). No `;`: an empty text.
 */
export class OscTitle {
  private phase = Phase.Id;
  private id = -1;
  private text = '';
  private tooLong = false;

  start(): void {
    this.phase = Phase.Id;
    this.id = -1;
    this.text = '';
    this.tooLong = false;
  }

  /** A unit of the sequence, its terminator excluded. */
  put(unit: number): void {
    if (this.phase === Phase.Id) {
      if (unit === SEMICOLON) this.phase = TITLE_IDS.has(this.id) ? Phase.Title : Phase.Other;
      else if (unit >= 0x30 && unit <= 0x39) this.id = Math.max(this.id, 0) * 10 + (unit - 0x30);
      else this.phase = Phase.Other;
    } else if (this.phase === Phase.Title && ((unit >= 0x20 && unit < 0x80) || unit >= 0xa0)) {
      if (this.text.length < MAX_WINDOW_TITLE_CHARS) this.text += String.fromCharCode(unit);
      else this.tooLong = true;
    }
  }

  /**
   * The sequence ended well (BEL, ST or an ESC): the title it sets, `undefined` inside when too long to keep; undefined
   * when it sets none.
   */
  end(): { title: string | undefined } | undefined {
    if (this.phase === Phase.Other || (this.phase === Phase.Id && !TITLE_IDS.has(this.id))) return undefined;
    return { title: this.tooLong ? undefined : this.text };
  }
}
