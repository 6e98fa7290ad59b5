import type { BufferLine } from '../buffer/output-buffer.js';
import { MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import type { LinearPattern } from './linear-pattern.js';

/** The part of OutputBuffer a scanner reads. */
export interface ScannedLines {
  readonly completedLines: number;
  partialLine(): string;
  linesFrom(lineNumber: number, limit: number): BufferLine[];
}

export interface OutputMatch {
  /** Absolute line number. */
  readonly line: number;
  readonly text: string;
  /** The match is in the unfinished last line (a prompt): it may still grow. */
  readonly unfinished: boolean;
}

/** Where the output stood when a call began: its unfinished line's number and text. */
export interface OutputMark {
  readonly line: number;
  readonly partial: string;
}

export function markOf(lines: ScannedLines): OutputMark {
  return { line: lines.completedLines + 1, partial: lines.partialLine() };
}

/**
 * Finds `pattern` in the output that arrived after `mark`, one call per chunk. Each call tests only the lines
 * completed since the previous call (each finished line is tested once) plus the unfinished line's last
 * MAX_PARTIAL_MATCH_CHARS characters, so a call costs about the new text. The unfinished line is only tested once
 * something changed it since the mark: a prompt that was already on screen when the call began (`>>> ` before
 * the write) must not end the wait at once. A line completed after the mark counts even if it began before it
 * (its end is new output). Lines dropped by a flood before they were scanned are skipped.
 */
export function outputScanner(
  lines: ScannedLines,
  pattern: LinearPattern,
  mark: OutputMark,
): () => OutputMatch | undefined {
  let next = mark.line;
  return () => {
    const completed = lines.completedLines;
    if (completed >= next) {
      const fresh = lines.linesFrom(next, completed - next + 1);
      next = completed + 1;
      const finished = fresh.filter((l) => l.lineNumber <= completed);
      const hit = finished[pattern.firstMatch(finished.map((l) => l.text))];
      if (hit !== undefined) return { line: hit.lineNumber, text: hit.text, unfinished: false };
    }
    const partial = lines.partialLine();
    if (partial === '' || (completed + 1 === mark.line && partial === mark.partial)) return undefined;
    const tested = partial.length > MAX_PARTIAL_MATCH_CHARS ? partial.slice(-MAX_PARTIAL_MATCH_CHARS) : partial;
    return pattern.test(tested) ? { line: completed + 1, text: partial, unfinished: true } : undefined;
  };
}
