import { MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import { type OutputPart, partText } from '../buffer/byte-ring.js';
import type { LinearPattern } from './linear-pattern.js';

/** The part of OutputBuffer a scanner reads. */
export interface ScannedLines {
  readonly completedLines: number;
  /** Finished lines from `lineNumber` on, each ended by `\n`, in parts of whole lines, with each part's first line. */
  completedPartsFrom(lineNumber: number): { parts: readonly OutputPart[]; firstLines: readonly number[] };
  partialLine(): string;
  partialTail(limit: number): string;
  /** `partialTail(limit)` as bytes when it is all ASCII and the line only appended to (valid until the next append). */
  partialTailAscii(limit: number): Uint8Array | undefined;
}

export interface OutputMatch {
  /** Absolute line number. */
  readonly line: number;
  readonly text: string;
  /** The match is in the unfinished last line (a prompt): it may still grow. */
  readonly unfinished: boolean;
}

/** Where the output stood when a call began: its unfinished line's number and the end of its text. */
export interface OutputMark {
  readonly line: number;
  /** The last MAX_PARTIAL_MATCH_CHARS characters of the unfinished line: all a scan of it ever looks at. */
  readonly partialTail: string;
}

export function markOf(lines: ScannedLines): OutputMark {
  return { line: lines.completedLines + 1, partialTail: lines.partialTail(MAX_PARTIAL_MATCH_CHARS) };
}

/** The line numbers of line starts `starts` (ascending offsets) in `text`, whose first line is `firstLine`: one pass. */
export function lineNumbers(text: string, firstLine: number, starts: readonly number[]): number[] {
  const numbers: number[] = [];
  let line = firstLine;
  let lf = text.indexOf('\n');
  for (const start of starts) {
    for (; lf !== -1 && lf < start; lf = text.indexOf('\n', lf + 1)) line++;
    numbers.push(line);
  }
  return numbers;
}

/**
 * Finds `pattern` in the output that arrived after `mark`, one `scan` per chunk. Each scan tests only the lines
 * completed since the previous one (each finished line is tested once, one engine pass per part of the text as
 * the buffer keeps it, never copied into one string) plus the unfinished line's last MAX_PARTIAL_MATCH_CHARS
 * characters, so a scan costs about the new text. The unfinished line is only tested once its tested end differs
 * from the mark's: a prompt that was already on screen when the call began (`>>> ` before the write) must not end
 * the wait at once. A line completed after the mark counts even if it began before it (its end is new output).
 * Lines dropped by a flood before they were scanned are skipped.
 *
 * A class, not a closure made per wait: it runs after every chunk, and JavaScriptCore drops the compiled code of a
 * closure none of which is alive any more (see tapHandler).
 */
export class OutputScanner {
  private next: number;

  constructor(
    private readonly lines: ScannedLines,
    private readonly pattern: LinearPattern,
    private readonly mark: OutputMark,
  ) {
    this.next = mark.line;
  }

  /** The first match in the output that arrived since the last scan (or the mark), if any. */
  scan(): OutputMatch | undefined {
    const { lines, pattern, mark } = this;
    const completed = lines.completedLines;
    if (completed >= this.next) {
      const { parts, firstLines } = lines.completedPartsFrom(this.next);
      this.next = completed + 1;
      for (let k = 0; k < parts.length; k++) {
        const part = parts[k] as OutputPart;
        // Plain bytes without the pattern's required literal: their text is never made.
        if (typeof part !== 'string' && !pattern.mayMatchAscii(part)) continue;
        const text = partText(part);
        const hit = pattern.matchingLines(text).next();
        if (hit.done) continue;
        const { start, end } = hit.value;
        return {
          line: lineNumbers(text, firstLines[k] as number, [start])[0] as number,
          text: text.slice(start, end),
          unfinished: false,
        };
      }
    }
    // The unfinished line is tested after every chunk: an ASCII one without the pattern's required literal is ruled
    // out from its bytes, its text never made (a flood with no line feed made 4 KiB of it per chunk).
    if (pattern.rulesOutAscii) {
      const bytes = lines.partialTailAscii(MAX_PARTIAL_MATCH_CHARS);
      if (bytes !== undefined && !pattern.mayMatchAscii(bytes)) return undefined;
    }
    const tail = lines.partialTail(MAX_PARTIAL_MATCH_CHARS);
    if (tail === '' || (completed + 1 === mark.line && tail === mark.partialTail)) return undefined;
    return pattern.test(tail) ? { line: completed + 1, text: lines.partialLine(), unfinished: true } : undefined;
  }
}
