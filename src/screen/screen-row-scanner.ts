import type { LinearPattern } from '../patterns/linear-pattern.js';

/** A screen row a wait's pattern matched: 0-based, as in `screen.rows`. */
export interface ScreenRowMatch {
  readonly screenRow: number;
  readonly text: string;
}

/**
 * A wait's pattern tested on the screen's rows while a full-screen program shows (the line log leaves its drawing
 * out). Only rows that changed since the wait began count, so what the screen already showed is not taken for the
 * answer; a row that changed and came back to the same text counts (vim's `"f" 1L written` after a second `:w`
 * shows `:w` in between). What changed and changed back between two looks is not seen: a program that redraws a row
 * with the same text, or sends nothing since the terminal shows it already, gives no new row.
 */
export class ScreenRowScanner {
  private readonly changed: boolean[] = [];

  /** `baseline`: the rows when the wait began; undefined when every row counts (the program was not full-screen). */
  constructor(
    private readonly pattern: LinearPattern,
    private previous: readonly string[] | undefined,
  ) {}

  /** The first changed row, top to bottom, that matches in `rows` (the screen now). */
  scan(rows: readonly string[]): ScreenRowMatch | undefined {
    const before = this.previous;
    this.previous = rows;
    // Another size moves every row (a resize): each counts as changed.
    const resized = before === undefined || before.length !== rows.length;
    for (let row = 0; row < rows.length; row++) {
      if (resized || before[row] !== rows[row]) this.changed[row] = true;
    }
    for (let row = 0; row < rows.length; row++) {
      const text = rows[row] as string;
      if (this.changed[row] === true && this.pattern.test(text)) return { screenRow: row, text };
    }
    return undefined;
  }
}
