import type { LinearPattern } from '../patterns/linear-pattern.js';
import type { PrintedRuns } from './printed-runs.js';

/** A screen row a wait's pattern matched: 0-based, as in `screen.rows`. */
export interface ScreenRowMatch {
  readonly screenRow: number;
  readonly text: string;
}

/**
 * A wait's pattern tested on the screen's rows while a full-screen program shows (the line log leaves its drawing
 * out). A row is new when its text was on no row of the last look (rows that only scrolled or stayed are not), or
 * when the output since the last look printed it (a message shown again with the same text). Each look tests the new
 * rows at once, so nothing needs remembering but the last look's rows.
 */
export class ScreenRowScanner {
  /** `previous`: the rows when the wait began; undefined when every row counts (the program was not full-screen). */
  constructor(
    private readonly pattern: LinearPattern,
    private previous: readonly string[] | undefined,
  ) {}

  /** The first new row, top to bottom, that matches in `rows` (the screen now), given what was printed since the last look. */
  scan(rows: readonly string[], printed: PrintedRuns): ScreenRowMatch | undefined {
    const before = this.previous;
    this.previous = rows;
    // How many rows of the last look held each text: of a text's rows now, those past that many, counted from the
    // top, are new (scrolled text moves up, what comes shows below it).
    const seen = new Map<string, number>();
    for (const row of before ?? []) seen.set(row, (seen.get(row) ?? 0) + 1);
    const counted = new Map<string, number>();
    for (let row = 0; row < rows.length; row++) {
      const text = rows[row] as string;
      const k = counted.get(text) ?? 0;
      counted.set(text, k + 1);
      const isNew = before === undefined || k >= (seen.get(text) ?? 0) || printed.printed(text);
      if (isNew && this.pattern.test(text)) return { screenRow: row, text };
    }
    return undefined;
  }
}
