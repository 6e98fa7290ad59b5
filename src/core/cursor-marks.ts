import { MAX_CURSOR_MARKS, MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import type { OutputMark, ScannedLines } from '../patterns/output-scanner.js';

/** What a cursor is handed out on: where the finished lines end, and the unfinished line's text. */
export type CursorLines = Pick<ScannedLines, 'completedLines' | 'partialTail'>;
import { BoundedMap } from './bounded-map.js';

/**
 * The cursors handed out for one PTY, with the unfinished line's text as it stood when a cursor pointed at that line
 * (the newest MAX_CURSOR_MARKS such lines): a wait from a cursor then counts what came since the cursor exactly as a
 * wait begun at that moment would have. A cursor on a prompt is the common case: a command typed at `bash$ ` finishes
 * that line with a bare line feed (input is not echoed), which is no new output (see OutputScanner).
 */
export class CursorMarks {
  private readonly unfinished = new BoundedMap<number, string>(MAX_CURSOR_MARKS);

  /** The cursor `L<line>`, remembering the unfinished line's text when `line` is the unfinished line. */
  handOut(lines: CursorLines, line: number): string {
    if (line === lines.completedLines + 1) this.unfinished.set(line, lines.partialTail(MAX_PARTIAL_MATCH_CHARS));
    return `L${line}`;
  }

  /** Where a wait from the cursor at line `line` begins. A cursor not handed out here (or forgotten) counts all of the line. */
  markAt(line: number): OutputMark {
    return { line, partialTail: this.unfinished.get(line) ?? '' };
  }
}
