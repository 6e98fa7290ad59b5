import type { BufferLine } from '../buffer/output-buffer.js';
import { MAX_LINE_CHARS } from '../limits.js';
import { isHighSurrogate } from '../text/surrogates.js';
import type { OutputMatch } from '../patterns/output-scanner.js';
import type { ReadLine, WaitMatch } from '../protocol/tool-results.js';

/**
 * A line as a result shows it: cut at MAX_LINE_CHARS, saying so, so one giant line cannot flood the model's context;
 * and saying how much a line longer than the buffer's bound lost from its head (`headDropped`), so its text is not
 * taken for the line's start.
 */
export function viewLine(lineNumber: number, text: string, headDropped = 0): ReadLine {
  const line: ReadLine =
    text.length > MAX_LINE_CHARS
      ? { line: lineNumber, text: text.slice(0, cutBeforePair(text, MAX_LINE_CHARS)), cutFrom: text.length }
      : { line: lineNumber, text };
  return headDropped > 0 ? { ...line, headDropped } : line;
}

/** `at`, or one less where it would cut a surrogate pair in two (an emoji), which would leave half of it, invalid text. */
function cutBeforePair(text: string, at: number): number {
  return isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

/**
 * A wait's match as a result shows it: its line cut exactly as viewLine cuts the same line in `lines`. The scanner
 * hands over the whole line (a finished line of a flood, or the unfinished one, can be megabytes); it is cut here,
 * once per wait, not in the scan that runs per chunk.
 */
export const viewMatch = ({ line, text, unfinished }: OutputMatch, headDropped = 0): WaitMatch => ({
  ...viewLine(line, text, headDropped),
  unfinished,
});

export function viewLines(lines: readonly BufferLine[]): ReadLine[] {
  return lines.map(({ lineNumber, text, headDropped }) => viewLine(lineNumber, text, headDropped));
}
