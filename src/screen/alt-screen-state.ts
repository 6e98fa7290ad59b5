import { lastAltToggle, RESET_SEQUENCE_OVERLAP } from './reset-points.js';

/** What the emulator reads its input from: the PTY's raw output with absolute offsets (see OutputBuffer). */
export interface RawSource {
  readonly totalRawChars: number;
  rawSince(offset: number): { text: string; from: number };
}

/** What lets a screen read a plain flood from its end without reading all that is kept (see OutputBuffer). */
export interface PlainFloodSource extends RawSource {
  readonly rawStart: number;
  plainFrom(offset: number): boolean;
  lastRawLineFeedBefore(before: number): number;
}

/**
 * Whether the program is on the alternate screen, known without an emulator: a scan of the raw output since the
 * last look for the newest switch (a regular expression over new output only, far cheaper than emulating it).
 * Output lost before a look keeps the state it had when no switch is in what is kept.
 */
export class AltScreenState {
  private offset = 0;
  private active = false;

  /** The state as last looked at, without looking again. */
  alternateNow(): boolean {
    return this.active;
  }

  /** Output up to absolute offset `end` is known to hold no switch (a plain flood): nothing to scan. */
  skipPlain(end: number): void {
    this.offset = Math.max(this.offset, end);
  }

  /** The absolute raw offset it has looked up to. */
  get seenTo(): number {
    return this.offset;
  }

  update(source: RawSource): boolean {
    if (source.totalRawChars === this.offset) return this.active;
    // Look back a little: a switch split across two looks is then seen whole (seeing one twice changes nothing).
    const { text, from } = source.rawSince(Math.max(0, this.offset - RESET_SEQUENCE_OVERLAP));
    return this.updateWith(text, from);
  }

  /**
   * The same, from kept text the caller already has, which runs from absolute offset `from` to the end of the
   * output: an emulator catching up reads it anyway, and a second copy of a megabyte per screen read is not free.
   */
  updateWith(text: string, from: number): boolean {
    const start = Math.max(0, this.offset - RESET_SEQUENCE_OVERLAP - from);
    if (start >= text.length && from + text.length === this.offset) return this.active;
    const toggle = lastAltToggle(start > 0 ? text.slice(start) : text);
    if (toggle !== undefined) this.active = toggle.enter;
    this.offset = from + text.length;
    return this.active;
  }
}
