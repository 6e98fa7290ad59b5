import { MAX_CSI_PARAMS } from '../limits.js';

const QUESTION = 0x3f;
const SET_MODE = 0x68; // h
const RESET_MODE = 0x6c; // l
/** The DEC private modes that switch to the alternate screen and back: 1049 (saves the cursor), 1047, 47. */
const ALTERNATE_SCREEN_MODES: ReadonlySet<number> = new Set([47, 1047, 1049]);
/** A parameter stops growing here: only its value up to the largest mode above matters. */
const MAX_CSI_PARAM = 99_999;

/**
 * The parameters of the CSI sequence being read: its parameters (for the line's cursor moves and erases, and for the
 * modes a screen restart gives back, terminal-modes.ts), whether it is a `CSI ?` sequence (DEC private modes), and its
 * intermediate (`CSI ! p`). A parameter with no digit is -1. No object per sequence: colored output ends one every few
 * characters, so the parameters go into one array reused for every sequence.
 */
export class CsiParams {
  private readonly values: number[] = [];
  private count = 0;
  /** Another private marker (`>`, `=` …) or an intermediate: the sequence is never applied to the line. */
  private ignored = false;
  /** A `CSI ?` sequence. */
  private isPrivate = false;
  /** The parameter being read, -1 while it has no digit. */
  private param = -1;
  /** The last intermediate byte (0x20–0x2f), 0 for none. */
  private intermediateByte = 0;
  /** A private marker other than `?` that opened the sequence (`>` in `CSI > c`), 0 for none. */
  private markerByte = 0;
  /** The sequence has another private marker than `?`. */
  private otherMarker = false;

  /** A new sequence begins (after `ESC [` or C1 CSI). */
  start(): void {
    this.count = 0;
    this.ignored = false;
    this.isPrivate = false;
    this.param = -1;
    this.intermediateByte = 0;
    this.otherMarker = false;
    this.markerByte = 0;
  }

  /** A parameter or intermediate byte (0x20–0x3f). */
  take(unit: number): void {
    if (unit >= 0x30 && unit <= 0x39) {
      this.param = Math.min(Math.max(this.param, 0) * 10 + (unit - 0x30), MAX_CSI_PARAM);
    } else if (unit === 0x3b || unit === 0x3a) {
      this.endParam();
    } else if (unit === QUESTION && this.param === -1 && this.count === 0 && !this.ignored) {
      this.isPrivate = true;
    } else {
      // Other private markers (`>`, `=` …) and intermediates: never a sequence applied to the line.
      if (unit < 0x30) this.intermediateByte = unit;
      else {
        if (!this.otherMarker && this.param === -1 && this.count === 0) this.markerByte = unit;
        this.otherMarker = true;
      }
      this.ignored = true;
      this.isPrivate = false;
    }
  }

  /** The sequence's final byte came: its last parameter is complete. */
  end(): void {
    this.endParam();
  }

  /** Whether the sequence, once it ends, acts on the line: neither private nor ignored. */
  get appliesToLine(): boolean {
    return !this.isPrivate && !this.ignored;
  }

  /** A `CSI ?` sequence. */
  get privateModes(): boolean {
    return this.isPrivate;
  }

  /** No private marker of any kind, and no intermediate but `only` (0: none). */
  plainWith(only: number): boolean {
    return !this.isPrivate && !this.otherMarker && this.intermediateByte === only;
  }

  /** Opened by the private marker `marker` (not `?`), with no intermediate. */
  markedWith(marker: number): boolean {
    return this.otherMarker && this.markerByte === marker && this.intermediateByte === 0;
  }

  /** The first parameter, -1 when it has none. */
  get firstParam(): number {
    return this.at(0);
  }

  /** How many parameters the sequence has (an empty one counts: `CSI ; 5 r` has two). */
  get length(): number {
    return this.count;
  }

  /** Parameter `index`, -1 when it has no digit or is not there. */
  at(index: number): number {
    return index < this.count && index < MAX_CSI_PARAMS ? (this.values[index] as number) : -1;
  }

  /**
   * Once ended: true or false for a switch to or from the alternate screen, as xterm makes DECSET / DECRST
   * (`CSI ? … h` / `l`) of any of 47, 1047, 1049 in the list; undefined for anything else.
   */
  screenSwitch(final: number): boolean | undefined {
    if (!this.isPrivate || (final !== SET_MODE && final !== RESET_MODE)) return undefined;
    for (let i = 0; i < this.count && i < MAX_CSI_PARAMS; i++) {
      if (ALTERNATE_SCREEN_MODES.has(this.values[i] as number)) return final === SET_MODE;
    }
    return undefined;
  }

  private endParam(): void {
    if (this.count < MAX_CSI_PARAMS) this.values[this.count] = this.param;
    this.count++;
    this.param = -1;
  }
}
