import { MAX_PARTIAL_MATCH_CHARS } from '../limits.js';
import { partText } from '../buffer/byte-ring.js';
import { CompletedParts } from '../buffer/completed-parts.js';
import type { AppendedLine } from '../buffer/line-cells.js';
import type { LinearPattern } from './linear-pattern.js';

/** The part of OutputBuffer a scanner reads. */
export interface ScannedLines {
  readonly completedLines: number;
  /**
   * Finished lines from `lineNumber` on, each ended by `\n`, in parts of whole lines, with each part's first line:
   * `into` cleared and filled.
   */
  completedPartsFrom(lineNumber: number, into: CompletedParts): CompletedParts;
  partialLine(): string;
  /** Length of `partialLine()` without making it. */
  readonly partialLength: number;
  /** Characters of raw output ever appended (a measure of how much came since a moment). */
  readonly totalRawChars: number;
  partialTail(limit: number): string;
  /** `partialTail(limit)` as bytes when it is all ASCII and the line only appended to (valid until the next append). */
  partialTailAscii(limit: number): Uint8Array | undefined;
  /** The unfinished line, to tell that it was only appended to since a look (see LineCells.rewrites). */
  readonly openLine: AppendedLine;
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
  /** The last MAX_PARTIAL_MATCH_CHARS characters of the unfinished line: what tells whether it changed since. */
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
 * the buffer keeps it, never copied into one string) plus the unfinished line, so a scan costs about the new text.
 * The unfinished line is tested whole, as a finished one would be (`^` at its real start, a match anywhere in it):
 * after every chunk while it is at most MAX_PARTIAL_MATCH_CHARS long; a longer one (a JSON reply with no newline, a
 * progress line) only once as much output has come since its last test as it is long, and by `settle` once the
 * output pauses, so a flood with no line feed costs each of its characters about once, not once per chunk. The
 * unfinished line is only tested once it differs from the mark's: a prompt that was already on screen when the call
 * began (`>>> ` before the write) must not end the wait at once. A line completed after the mark counts even if it
 * began before it, unless all that came of it was its line feed (unchangedSinceMark). Lines dropped by a flood before they were scanned are skipped.
 *
 * A class, not a closure made per wait: it runs after every chunk, and JavaScriptCore drops the compiled code of a
 * closure none of which is alive any more (see tapHandler).
 */
export class OutputScanner {
  private next: number;
  /** The long unfinished line last tested whole (its number), and `totalRawChars` then. */
  private wholeLine = 0;
  private wholeAt = 0;
  /** A long unfinished line changed after its last test: `settle` tests it. */
  private untested = false;
  /** Filled at every scan that has finished lines to test. */
  private readonly completed = new CompletedParts();
  /**
   * The long unfinished line as far as it is known not to hold the pattern's required literal: the line, its
   * `rewrites` then, and its `end` then. While the line is only appended to, each chunk's new bytes (and the literal's
   * length less one before them) are all that need a look: a flood with no line feed costs each byte one look, and
   * the line is never joined to be looked at whole.
   */
  private clearLine: AppendedLine | undefined;
  private clearRewrites = 0;
  private clearEnd = 0;

  constructor(
    private readonly lines: ScannedLines,
    private readonly pattern: LinearPattern,
    private readonly mark: OutputMark,
  ) {
    this.next = mark.line;
  }

  /** The first match in the output that arrived since the last scan (or the mark), if any. */
  scan(): OutputMatch | undefined {
    const { lines } = this;
    const completed = lines.completedLines;
    if (completed >= this.next) {
      const found = this.scanCompleted(lines.completedPartsFrom(this.next, this.completed));
      this.completed.clear();
      this.next = completed + 1;
      if (found !== undefined) return found;
    }
    return this.scanUnfinished(false);
  }

  /** The whole unfinished line was just looked at: it does not hold the pattern's required literal. */
  private noteWithoutLiteral(): void {
    const open = this.lines.openLine;
    this.clearLine = open;
    this.clearRewrites = open.rewrites;
    this.clearEnd = open.end;
  }

  /**
   * Whether the unfinished line still lacks the pattern's required literal, looking only at what was appended to it
   * since that was last known (see clearLine); false when that is not known or the line was rewritten since.
   */
  private stillWithoutLiteral(): boolean {
    const open = this.lines.openLine;
    if (open !== this.clearLine || open.rewrites !== this.clearRewrites || open.end < this.clearEnd) return false;
    const fresh = open.end - this.clearEnd;
    if (fresh === 0) return true;
    const bytes = this.lines.partialTailAscii(fresh + this.pattern.asciiLiteralOverlap);
    if (bytes === undefined || this.pattern.mayMatchAscii(bytes)) {
      this.clearLine = undefined;
      return false;
    }
    this.clearEnd = open.end;
    return true;
  }

  private scanCompleted(parts: CompletedParts): OutputMatch | undefined {
    const { pattern } = this;
    for (let k = 0; k < parts.length; k++) {
      const part = parts.part(k);
      // Plain bytes without the pattern's required literal: their text is never made.
      if (typeof part !== 'string' && !pattern.mayMatchAscii(part)) continue;
      const text = partText(part);
      for (const { start, end } of pattern.matchingLines(text)) {
        const line = lineNumbers(text, parts.firstLine(k), [start])[0] as number;
        const matched = text.slice(start, end);
        if (line === this.mark.line && this.unchangedSinceMark(matched)) continue;
        return { line, text: matched, unfinished: false };
      }
    }
    return undefined;
  }

  /**
   * The line that was unfinished at the mark was finished by a line feed alone: nothing of it is new but its end. A
   * shell's prompt is that line when the call types a command, since input is not echoed: readline answers Enter with
   * `\n` only, which finished `bash$ ` as it stood, and a wait for the next prompt matched the old one at once.
   */
  private unchangedSinceMark(line: string): boolean {
    const before = this.mark.partialTail;
    return before !== '' && line.slice(-MAX_PARTIAL_MATCH_CHARS) === before;
  }

  /** A long unfinished line changed after it was last tested whole: `settle` should run once the output pauses. */
  get unsettled(): boolean {
    return this.untested;
  }

  /** The output paused: the long unfinished line is tested whole if it changed since it last was. */
  settle(): OutputMatch | undefined {
    return this.untested ? this.scanUnfinished(true) : undefined;
  }

  private scanUnfinished(settling: boolean): OutputMatch | undefined {
    const { lines, pattern, mark } = this;
    this.untested = false;
    const length = lines.partialLength;
    if (length === 0) return undefined;
    const line = lines.completedLines + 1;
    if (length > MAX_PARTIAL_MATCH_CHARS) {
      // Without the literal the line cannot match, and there is nothing for `settle` to test.
      if (this.stillWithoutLiteral()) return undefined;
      if (!settling && line === this.wholeLine && lines.totalRawChars - this.wholeAt < length) {
        this.untested = true;
        return undefined;
      }
      this.wholeLine = line;
      this.wholeAt = lines.totalRawChars;
    }
    // An ASCII line without the pattern's required literal is ruled out from its bytes, its text never made (a flood
    // with no line feed makes a long one).
    if (pattern.rulesOutAscii) {
      const bytes = lines.partialTailAscii(length);
      if (bytes !== undefined && !pattern.mayMatchAscii(bytes)) {
        this.noteWithoutLiteral();
        return undefined;
      }
    }
    if (line === mark.line && lines.partialTail(MAX_PARTIAL_MATCH_CHARS) === mark.partialTail) return undefined;
    const text = lines.partialLine();
    return pattern.test(text) ? { line, text, unfinished: true } : undefined;
  }
}
