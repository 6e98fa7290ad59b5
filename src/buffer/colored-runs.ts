import { indexOrEnd, nextMatch, SPECIAL_BUT_LF } from './special-units.js';

const CR = 0x0d;
const ESC = 0x1b;

/** Where a run of colored lines ends (after its last `\n`), and its text when it was already cut out. */
export interface ColoredRun {
  readonly end: number;
  readonly plain?: string;
}

/**
 * Colored lines, as test runners and compilers print them: whole lines whose only special units are SGR sequences
 * (colors, bold …) and a `\r` right before the `\n`. Neither changes a line's text, so a run of them is its text with
 * those cut out, by one native replace. Through the line renderer's state machine, each cost a call per character
 * of its sequences and a string per line (5x a plain line).
 */
export class ColoredRuns {
  /** A whole SGR sequence within the sequence bound. */
  private readonly color: RegExp;
  /** Every such sequence, and a `\r` right before a `\n`. */
  private readonly colorsAndLineEndCr = /\x1b\[[0-9;:]*m|\r(?=\n)/g;

  constructor(
    private readonly maxLineChars: number,
    private readonly maxSequenceChars: number,
  ) {
    // ESC, `[` and the final `m` count towards the bound: a longer one is abandoned midway, as the state machine does.
    const params = `[0-9;:]{0,${Math.max(maxSequenceChars - 3, 0)}}`;
    this.color = maxSequenceChars < 3 ? /(?!)/y : new RegExp(`\\x1b\\[${params}m`, 'y');
  }

  /**
   * The end (after its `\n`) of the longest run of whole colored lines from the line start `start`, each within the
   * line bound; `start` when there is none. `special` and `lf` are the first special unit and `\n` at or after
   * `start`. Each sequence is checked against the bound on its own.
   */
  lines(input: string, start: number, special: number, lf: number, end: number): ColoredRun {
    let whole = start;
    let lineEnd = lf;
    for (let at = special; lineEnd < end; lineEnd = indexOrEnd(input.indexOf('\n', whole), end)) {
      if (lineEnd - whole > this.maxLineChars) break;
      while (at < lineEnd) {
        const unit = input.charCodeAt(at);
        if (unit === ESC) {
          this.color.lastIndex = at;
          if (!this.color.test(input)) return { end: whole };
          at = nextMatch(SPECIAL_BUT_LF, input, this.color.lastIndex);
        } else if (unit === CR && at + 1 === lineEnd) {
          at = nextMatch(SPECIAL_BUT_LF, input, lineEnd);
        } else {
          return { end: whole };
        }
      }
      whole = lineEnd + 1;
    }
    return { end: whole };
  }

  /**
   * Whether everything from the line start `start` to the last `\n` of the chunk is colored lines, found by cutting
   * the sequences out and looking for any special unit left: the end of that run and its text, or `start`. Within
   * the sequence bound, so none of its sequences can have run past it.
   */
  rest(input: string, start: number, end: number): ColoredRun {
    const last = input.lastIndexOf('\n', Math.min(end, start + this.maxSequenceChars) - 1);
    if (last < start) return { end: start };
    const plain = this.cutOut(input, start, last + 1);
    if (plain.length > this.maxLineChars || nextMatch(SPECIAL_BUT_LF, plain, 0) < plain.length) return { end: start };
    return { end: last + 1, plain };
  }

  /**
   * `input.slice(from, to)` with its sequences and line-end `\r`s cut out. Unbounded: it only runs over what `rest`
   * keeps within the bound or `lines` checked sequence by sequence.
   */
  cutOut(input: string, from: number, to: number): string {
    return input.slice(from, to).replace(this.colorsAndLineEndCr, '');
  }
}
