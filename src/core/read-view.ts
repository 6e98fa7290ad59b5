import type { BufferLine } from '../buffer/output-buffer.js';
import { MAX_LINE_CHARS } from '../limits.js';
import type { ReadLine } from '../protocol/tool-results.js';

/** A line as a result shows it: cut at MAX_LINE_CHARS, saying so, so one giant line cannot flood the model's context. */
export const viewLine = (lineNumber: number, text: string): ReadLine =>
  text.length > MAX_LINE_CHARS
    ? { line: lineNumber, text: text.slice(0, MAX_LINE_CHARS), cutFrom: text.length }
    : { line: lineNumber, text };

export function viewLines(lines: readonly BufferLine[]): ReadLine[] {
  return lines.map(({ lineNumber, text }) => viewLine(lineNumber, text));
}
