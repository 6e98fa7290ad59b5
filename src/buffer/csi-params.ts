const QUESTION = 0x3f;
const SET_MODE = 0x68; // h
const RESET_MODE = 0x6c; // l
/** The DEC private modes that switch to the alternate screen and back: 1049 (saves the cursor), 1047, 47. */
const ALTERNATE_SCREEN_MODES: ReadonlySet<number> = new Set([47, 1047, 1049]);
/** A parameter stops growing here: only its value up to the largest mode above matters. */
const MAX_CSI_PARAM = 99_999;

/**
 * The parameters of the CSI sequence being read, kept only as far as the line renderer acts on them: the first
 * parameter (for the line's cursor moves and erases), and, for a `CSI ?` sequence (DEC private modes, applied to
 * nothing on the line), whether it names an alternate-screen mode.
 */
export class CsiParams {
  /** The first parameter, -1 while it has no digit. */
  private first = -1;
  private inFirst = true;
  /** Another private marker (`>`, `=` …) or an intermediate: the sequence is never applied. */
  private ignored = false;
  /** A `CSI ?` sequence. */
  private isPrivate = false;
  /** The parameter being read, -1 while it has no digit. */
  private param = -1;
  private switchesScreen = false;

  /** A new sequence begins (after `ESC [` or C1 CSI). */
  start(): void {
    this.first = -1;
    this.inFirst = true;
    this.ignored = false;
    this.isPrivate = false;
    this.param = -1;
    this.switchesScreen = false;
  }

  /** A parameter or intermediate byte (0x20–0x3f). */
  take(unit: number): void {
    if (unit >= 0x30 && unit <= 0x39) {
      if (this.inFirst) this.first = Math.max(this.first, 0) * 10 + (unit - 0x30);
      this.param = Math.min(Math.max(this.param, 0) * 10 + (unit - 0x30), MAX_CSI_PARAM);
    } else if (unit === 0x3b || unit === 0x3a) {
      this.inFirst = false;
      this.endParam();
    } else if (unit === QUESTION && this.first === -1 && this.inFirst && !this.ignored) {
      this.isPrivate = true;
    } else {
      // Other private markers (`>`, `=` …) and intermediates: never a sequence applied here.
      this.ignored = true;
      this.isPrivate = false;
    }
  }

  /** Whether the sequence, once it ends, acts on the line: neither private nor ignored. */
  get appliesToLine(): boolean {
    return !this.isPrivate && !this.ignored;
  }

  /** The first parameter, -1 when it has none. */
  get firstParam(): number {
    return this.first;
  }

  /**
   * The sequence ends with `final`: true or false for a switch to or from the alternate screen, as xterm makes
   * DECSET / DECRST (`CSI ? … h` / `l`) of any of 47, 1047, 1049 in the list; undefined for anything else. (No
   * object per sequence: colored output ends one every few characters.)
   */
  screenSwitch(final: number): boolean | undefined {
    if (!this.isPrivate) return undefined;
    this.endParam();
    return this.switchesScreen && (final === SET_MODE || final === RESET_MODE) ? final === SET_MODE : undefined;
  }

  private endParam(): void {
    if (ALTERNATE_SCREEN_MODES.has(this.param)) this.switchesScreen = true;
    this.param = -1;
  }
}
