import { MAX_CURSOR_MARKS, MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import type { OutputMark, ScannedLines } from '../patterns/output-scanner.js';
import { BoundedMap } from './bounded-map.js';

/** What a cursor is handed out on: where the finished lines end, and the unfinished line's text. */
export type CursorLines = Pick<ScannedLines, 'completedLines' | 'partialTail'>;

/** The screen a full-screen program shows when a cursor is handed out: what a wait from the cursor compares with. */
export interface ScreenThen {
  readonly screenRows: Promise<readonly string[] | undefined>;
  /** The end of the raw output then: what was printed after it is new to the wait. */
  readonly rawOffset: number;
}

/** The screen now, read only while a full-screen program is on the alternate screen (undefined otherwise). */
export type ScreenNow = () => ScreenThen | undefined;

/** Where a wait from a cursor begins: the output's mark, and the screen then, when a full-screen program showed. */
export interface CursorMark extends OutputMark, Partial<ScreenThen> {}

/**
 * The cursors handed out for one PTY, with the unfinished line's text as it stood when a cursor pointed at that line
 * (the newest MAX_CURSOR_MARKS such lines): a wait from a cursor then counts what came since the cursor exactly as a
 * wait begun at that moment would have. A cursor on a prompt is the common case: a command typed at `bash$ ` finishes
 * that line with a bare line feed (input is not echoed), which is no new output (see OutputScanner).
 */
export class CursorMarks {
  /** By mark number: the line and what it held when a cursor on it was handed out. */
  private readonly marks = new BoundedMap<number, CursorMark>(MAX_CURSOR_MARKS);
  private lastMark = 0;

  constructor(private readonly screenNow: ScreenNow = () => undefined) {}

  /**
   * The cursor for line `line`: `L<line>`, and `.<mark>` when it is the unfinished line and holds something, which
   * is remembered under that mark. A mark per cursor, not per line: a later read handing out the same line with more
   * on it must not change what an earlier cursor stands for (a spawn's `L1` before its prompt came, a read's `L1.1`
   * after).
   */
  handOut(lines: CursorLines, line: number): string {
    const partialTail = line === lines.completedLines + 1 ? lines.partialTail(MAX_PARTIAL_MATCH_CHARS) : '';
    // On the alternate screen the lines stand still: the screen is what a wait from the cursor compares with.
    const screen = this.screenNow();
    if (partialTail === '' && screen === undefined) return `L${line}`;
    this.lastMark++;
    this.marks.set(this.lastMark, { line, partialTail, ...screen });
    return `L${line}.${this.lastMark}`;
  }

  /**
   * Where a wait from `cursor` (checked by cursorLine) begins. A cursor with no mark, or one whose mark was forgotten
   * (the newest MAX_CURSOR_MARKS are kept), counts all of its line.
   */
  markAt(cursor: string, line: number): CursorMark {
    const dot = cursor.indexOf('.');
    const mark = dot < 0 ? undefined : this.marks.get(Number(cursor.slice(dot + 1)));
    return mark?.line === line ? mark : { line, partialTail: '' };
  }
}
