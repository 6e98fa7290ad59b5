import { MAX_CURSOR_MARKS, MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import type { OutputMark, ScannedLines } from '../patterns/output-scanner.js';
import { BoundedMap } from './bounded-map.js';

/** What a cursor is handed out on: where the finished lines end, and the unfinished line's text. */
export type CursorLines = Pick<ScannedLines, 'completedLines' | 'partialTail'>;

/**
 * The cursors handed out for one PTY, with the unfinished line's text as it stood when a cursor pointed at that line
 * (the newest MAX_CURSOR_MARKS such lines): a wait from a cursor then counts what came since the cursor exactly as a
 * wait begun at that moment would have. A cursor on a prompt is the common case: a command typed at `bash$ ` finishes
 * that line with a bare line feed (input is not echoed), which is no new output (see OutputScanner).
 */
export class CursorMarks {
  /** By mark number: the line and what it held when a cursor on it was handed out. */
  private readonly marks = new BoundedMap<number, { readonly line: number; readonly partialTail: string }>(
    MAX_CURSOR_MARKS,
  );
  private lastMark = 0;

  /**
   * The cursor for line `line`: `L<line>`, and `.<mark>` when it is the unfinished line and holds something, which
   * is remembered under that mark. A mark per cursor, not per line: a later read handing out the same line with more
   * on it must not change what an earlier cursor stands for (a spawn's `L1` before its prompt came, a read's `L1.1`
   * after).
   */
  handOut(lines: CursorLines, line: number): string {
    if (line !== lines.completedLines + 1) return `L${line}`;
    const partialTail = lines.partialTail(MAX_PARTIAL_MATCH_CHARS);
    if (partialTail === '') return `L${line}`;
    this.lastMark++;
    this.marks.set(this.lastMark, { line, partialTail });
    return `L${line}.${this.lastMark}`;
  }

  /**
   * Where a wait from `cursor` (checked by cursorLine) begins. A cursor with no mark, or one whose mark was forgotten
   * (the newest MAX_CURSOR_MARKS are kept), counts all of its line.
   */
  markAt(cursor: string, line: number): OutputMark {
    const dot = cursor.indexOf('.');
    const mark = dot < 0 ? undefined : this.marks.get(Number(cursor.slice(dot + 1)));
    return { line, partialTail: mark?.line === line ? mark.partialTail : '' };
  }
}
