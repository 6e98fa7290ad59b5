import { PtyError } from '../errors.js';
import type { ResultLine } from '../protocol/tool-results.js';
import { viewLine } from './read-view.js';
import type { CursorLines, CursorMarks } from './cursor-marks.js';
import { CURSOR_PATTERN } from '../protocol/wait-schema.js';

// The unfinished last line is never "seen" by a cursor: it is handed out again, grown, after the cursor.

/**
 * The cursor's line after a page of lines (offset or tail): past the last finished line handed out. `lastLine`
 * undefined (an empty page) means there was nothing left to read.
 */
export function lineAfterPage(completedLines: number, lastLine: number | undefined): number {
  return Math.min(lastLine ?? completedLines, completedLines) + 1;
}

/**
 * The line a cursor given to pty_read stands for. One past this PTY's output is refused as given, quoted, with the
 * cursors the PTY has: read as a number first, "L9999999999999999" came back as L10000000000000000.
 */
export function cursorLine(cursor: string, output: { readonly completedLines: number }): number {
  if (!CURSOR_PATTERN.test(cursor))
    throw new PtyError(
      'invalid_input',
      `cursor: "${cursor}" is not a cursor; pass the cursor of an earlier pty_read, pty_write or pty_spawn result (like "L42").`,
    );
  const dot = cursor.indexOf('.');
  const line = Number(cursor.slice(1, dot < 0 ? undefined : dot));
  const next = output.completedLines + 1;
  if (!Number.isSafeInteger(line) || line > next) {
    throw new PtyError(
      'invalid_input',
      `cursor: ${JSON.stringify(cursor)} is past the end of this PTY's output (the next line is ${next}, so its cursors run from L1 to L${next}); it belongs to another PTY or was made up. Nothing was read.`,
    );
  }
  return line;
}

/** The part of OutputBuffer a result's lines are read from. */
export interface ResultLineSource {
  readonly completedLines: number;
  linesFromAs<T>(
    lineNumber: number,
    limit: number,
    make: (lineNumber: number, text: string, headDropped: number) => T,
  ): T[];
}

/**
 * Up to `limit` lines from `lineNumber` on (see OutputBuffer.linesFrom) as a result shows them, the unfinished last
 * line (a prompt, a progress bar) saying so. Each is made once, as it is read: a wait that ends a long print hands
 * back 500 lines, and these calls answer once in a while, so their code runs cold (docs/perf-journal.md).
 */
export function resultLinesFrom(buffer: ResultLineSource, lineNumber: number, limit: number): ResultLine[] {
  const { completedLines } = buffer;
  return buffer.linesFromAs(lineNumber, limit, (n, text, headDropped): ResultLine => {
    const line = viewLine(n, text, headDropped);
    return n > completedLines ? { ...line, unfinished: true } : line;
  });
}

/** The part of OutputBuffer a cursor read needs. */
export interface CursorSource extends CursorLines, ResultLineSource {
  readonly firstLine: number;
  readonly totalLines: number;
}

/**
 * The lines from line `from` on, at most `limit`, and the cursor to continue from. `missedLines` counts lines
 * after `from` that the bounded buffer dropped before they were read.
 */
export function linesAfter(buffer: CursorSource, from: number, limit: number, cursors: CursorMarks) {
  if (from > buffer.completedLines + 1) {
    throw new PtyError(
      'invalid_input',
      `cursor: L${from} is past the end of this PTY's output (the next line is ${buffer.completedLines + 1}); it belongs to another PTY or was made up. Nothing was read.`,
    );
  }
  const missedLines = Math.max(0, buffer.firstLine - from);
  const lines = resultLinesFrom(buffer, from, limit);
  const last = lines.at(-1)?.line ?? from - 1;
  const hasMore = last < buffer.totalLines;
  // Continue after the last finished line handed out; the unfinished one comes again.
  const next = Math.min(last, buffer.completedLines);
  return {
    lines,
    hasMore,
    cursor: cursors.handOut(buffer, Math.max(next, from - 1) + 1),
    ...(missedLines > 0
      ? {
          missedLines,
          note: `${missedLines} lines after the cursor were dropped from the buffer (it keeps the newest output) before they were read.`,
        }
      : {}),
  };
}
