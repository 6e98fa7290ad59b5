import type { BufferLine } from '../buffer/output-buffer.js';
import { PtyError } from '../errors.js';
import type { ResultLine } from '../protocol/tool-results.js';
import { viewLines } from './read-view.js';
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

/** The lines of a result; the unfinished last line (a prompt, a progress bar) says so. */
export function resultLines(lines: readonly BufferLine[], completedLines: number): ResultLine[] {
  return viewLines(lines).map((line) => (line.line > completedLines ? { ...line, unfinished: true as const } : line));
}

/** The part of OutputBuffer a cursor read needs. */
export interface CursorSource extends CursorLines {
  readonly completedLines: number;
  readonly firstLine: number;
  readonly totalLines: number;
  linesFrom(lineNumber: number, limit: number): BufferLine[];
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
  const lines = buffer.linesFrom(from, limit);
  const last = lines.at(-1)?.lineNumber ?? from - 1;
  const hasMore = last < buffer.totalLines;
  // Continue after the last finished line handed out; the unfinished one comes again.
  const next = Math.min(last, buffer.completedLines);
  return {
    lines: resultLines(lines, buffer.completedLines),
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
