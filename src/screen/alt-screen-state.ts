import { lastAltToggle, RESET_SEQUENCE_OVERLAP } from './reset-points.js';

/** What the emulator reads its input from: the PTY's raw output with absolute offsets (see OutputBuffer). */
export interface RawSource {
  readonly totalRawChars: number;
  rawSince(offset: number): { text: string; from: number };
}

/**
 * Whether the program is on the alternate screen, known without an emulator: a scan of the raw output since the
 * last look for the newest switch (a regular expression over new output only, far cheaper than emulating it).
 * Output lost before a look keeps the state it had when no switch is in what is kept.
 */
export class AltScreenState {
  private offset = 0;
  private active = false;

  update(source: RawSource): boolean {
    if (source.totalRawChars === this.offset) return this.active;
    // Look back a little: a switch split across two looks is then seen whole (seeing one twice changes nothing).
    const { text, from } = source.rawSince(Math.max(0, this.offset - RESET_SEQUENCE_OVERLAP));
    const toggle = lastAltToggle(text);
    if (toggle !== undefined) this.active = toggle.enter;
    this.offset = from + text.length;
    return this.active;
  }
}
