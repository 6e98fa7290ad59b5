import { MAX_BUFFER_CHARS, MAX_ESCAPE_SEQUENCE_CHARS, MAX_TERMINAL_DIMENSION } from '../limits.js';

export interface LineRendererOptions {
  /** Longest line kept; a longer line keeps its newest tail. */
  readonly maxLineChars?: number;
  /** Past this many chars an unterminated escape sequence is abandoned and what follows is text again. */
  readonly maxSequenceChars?: number;
}

const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  /** OSC: ends at BEL, ST or `ESC \`. */
  Osc,
  /** DCS, SOS, PM, APC: end at ST or `ESC \`. */
  EscapeString,
}

const BEL = 0x07;
const BS = 0x08;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const CAN = 0x18;
const SUB = 0x1a;
const ESC = 0x1b;
const SPACE = 0x20;
const DEL = 0x7f;
const C1_DCS = 0x90;
const C1_SOS = 0x98;
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_OSC = 0x9d;
const C1_PM = 0x9e;
const C1_APC = 0x9f;
const REPLACEMENT = '\uFFFD';

/**
 * What plain text stops at: controls, and surrogates (their pairing is checked one by one). `\n` is looked for
 * apart (with indexOf, a memchr), so this is every such unit but `\n`.
 */
const SPECIAL_BUT_LF = /[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]/g;
/** First capacity of a line's cells; it doubles as the line grows. */
const INITIAL_LINE_CELLS = 256;
/** `String.fromCharCode.apply` takes its code units as arguments, so long lines go through in slices. */
const DECODE_SLICE = 8_192;

const indexOrEnd = (index: number, end: number): number => (index < 0 ? end : index);

/** Index of the next match of a one-unit global `pattern` at or after `from`, or the end. `test` allocates nothing. */
function nextMatch(pattern: RegExp, input: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(input) ? pattern.lastIndex - 1 : input.length;
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
const isC0 = (unit: number): boolean => unit < SPACE;

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Turns a PTY's decoded output stream into the lines a terminal would show, one chunk at a time.
 *
 * Escape sequences (CSI, OSC, DCS/SOS/PM/APC, two-byte and charset escapes, their 8-bit C1 forms) are removed;
 * the few that only move the cursor inside the current line or erase it (`CSI K`, `CSI G`, `CSI C`, `CSI D`) are
 * applied, because progress output relies on them as much as on `\r`. Anything that needs a screen (cursor up,
 * scroll regions, the alternate screen) cannot be expressed in a line log and is dropped.
 *
 * The current line has a cursor, as on a terminal: `\r` and `\b` only move it and later text overwrites in place,
 * so a `\r` at the end of a chunk needs no look-ahead (`\r\n` and `\n` both end the line with what it shows).
 * A line is a plain string while text only appends to it (the common case, no per-char work); the first overwrite
 * or partial erase turns it into a cell array, so rewriting a long line costs O(what is written), never O(line).
 *
 * Every decision depends on the characters alone, never on where chunks split: any split renders the same.
 */
export class LineRenderer {
  private readonly maxLineChars: number;
  private readonly maxSequenceChars: number;

  // The current line, in absolute columns. Columns below `base` were cut off a line far longer than the bound.
  /** The line while it has only been appended to: columns `base..length`. */
  private text = '';
  /**
   * Whether `text` may hold a surrogate pair. Without one no column can hold half a pair, so `visibleStart` needs
   * no look at `text`: reading a char of a long line built by appends (a cons string in V8) would flatten it,
   * copying the whole line once per chunk.
   */
  private textHasPairs = false;
  /** The line once something overwrote or partly erased it (until it ends); `text` is unused meanwhile. */
  private cells: Uint16Array | undefined;
  private base = 0;
  private length = 0;
  private cursor = 0;
  /** Longest the line has been; the cut point follows from it alone, so it is the same for any chunking. */
  private peak = 0;
  private partialCache: string | undefined = '';

  private state = State.Ground;
  private sequenceChars = 0;
  private csiFirstParam = -1;
  private csiInFirstParam = true;
  private csiIgnored = false;
  /** A high surrogate ending a chunk waits for its low half: a pair split by the chunking is still one character. */
  private pendingHigh = '';

  constructor(options: LineRendererOptions = {}) {
    this.maxLineChars = positiveInteger('maxLineChars', options.maxLineChars ?? MAX_BUFFER_CHARS);
    this.maxSequenceChars = positiveInteger('maxSequenceChars', options.maxSequenceChars ?? MAX_ESCAPE_SEQUENCE_CHARS);
  }

  /** Feeds a chunk; returns the lines it completed, oldest first. */
  push(chunk: string): string[] {
    const input = this.pendingHigh + chunk;
    this.pendingHigh = '';
    const end = input.length;
    const completed: string[] = [];
    // The next `\n` and the next other special unit at or after `i`, each still valid while it is >= i: found
    // once, they serve every plain line before them, so a chunk of short lines costs one regex scan and a
    // memchr per line rather than a regex call per line.
    let lf = -1;
    let other = -1;
    let i = 0;
    while (i < end) {
      if (this.state !== State.Ground) {
        // false: the sequence took the char; true: the sequence is over and the char is text, read it again.
        if (!this.consumeInSequence(input.charCodeAt(i), completed)) i++;
        continue;
      }
      if (lf < i) lf = indexOrEnd(input.indexOf('\n', i), end);
      if (other < i) other = nextMatch(SPECIAL_BUT_LF, input, i);
      if (this.length === 0 && this.cursor === 0 && this.cells === undefined) {
        // Whole plain lines on a fresh line: nothing to overwrite, pad or cut, so each is the line as written.
        // Taking one leaves the line fresh, so take all of them up to the next other special unit.
        const from = i;
        while (lf < other && lf - i <= this.maxLineChars) {
          completed.push(input.slice(i, lf));
          i = lf + 1;
          lf = indexOrEnd(input.indexOf('\n', i), end);
        }
        if (other + 1 === lf && lf < end && input.charCodeAt(other) === CR && other - i <= this.maxLineChars) {
          // `\r\n`: the `\r` only sends the cursor home first.
          completed.push(input.slice(i, other));
          i = lf + 1;
        }
        if (i > from) continue;
      }
      const special = lf < other ? lf : other;
      // The bulk of any output is plain text: take it a run at a time, up to the next special unit.
      if (special > i) {
        this.put(input.slice(i, special));
        i = special;
        continue;
      }
      const unit = input.charCodeAt(i);
      if (isHigh(unit)) {
        if (i + 1 === end) {
          this.pendingHigh = input.slice(i);
        } else if (isLow(input.charCodeAt(i + 1))) {
          this.put(input.slice(i, i + 2));
          i++;
        } else {
          this.put(REPLACEMENT);
        }
      } else if (isLow(unit)) {
        this.put(REPLACEMENT);
      } else {
        this.ground(unit, completed);
      }
      i++;
    }
    return completed;
  }

  /** The unterminated current line as it looks now (cached until it changes). */
  partial(): string {
    this.partialCache ??= this.render();
    return this.partialCache;
  }

  /** Length of `partial()` without building it. */
  get partialLength(): number {
    return Math.max(this.length - this.visibleStart(), 0);
  }

  /** Ends the stream: an unfinished escape sequence is dropped and a non-empty current line is completed. */
  flush(): string[] {
    if (this.pendingHigh !== '') this.put(REPLACEMENT);
    this.pendingHigh = '';
    this.state = State.Ground;
    const completed = this.partialLength > 0 ? [this.partial()] : [];
    this.newLine();
    return completed;
  }

  // ── Escape sequences ───────────────────────────────────────────────────────────────────────

  private consumeInSequence(unit: number, completed: string[]): boolean {
    if (++this.sequenceChars > this.maxSequenceChars) {
      this.state = State.Ground;
      return true;
    }
    if (unit === ESC) {
      // Inside a string this starts its `ESC \` terminator; anywhere else it starts over.
      this.enterEscape();
      return false;
    }
    if (unit === CAN || unit === SUB) {
      this.state = State.Ground;
      return false;
    }
    if (this.state === State.Osc) {
      if (unit === BEL || unit === C1_ST) this.state = State.Ground;
      return false;
    }
    if (this.state === State.EscapeString) {
      if (unit === C1_ST) this.state = State.Ground;
      return false;
    }
    // Escape and CSI: C0 controls still act (a VT parser executes them mid-sequence), DEL is ignored,
    // and anything past ASCII cannot belong to the sequence, so it ends it and is read as text.
    if (unit === DEL) return false;
    if (unit > DEL) {
      this.state = State.Ground;
      return true;
    }
    if (isC0(unit)) {
      this.control(unit, completed);
    } else if (this.state === State.Escape) {
      this.escape(unit);
    } else if (this.state === State.EscapeIntermediate) {
      if (unit >= 0x30) this.state = State.Ground;
    } else {
      this.csi(unit);
    }
    return false;
  }

  private enterEscape(): void {
    this.state = State.Escape;
    this.sequenceChars = 1;
  }

  private enterCsi(): void {
    this.state = State.Csi;
    this.csiFirstParam = -1;
    this.csiInFirstParam = true;
    this.csiIgnored = false;
  }

  private escape(unit: number): void {
    switch (unit) {
      case 0x5b: // [
        this.enterCsi();
        return;
      case 0x5d: // ]
        this.state = State.Osc;
        return;
      case 0x50: // P
      case 0x58: // X
      case 0x5e: // ^
      case 0x5f: // _
        this.state = State.EscapeString;
        return;
      default:
        // `ESC ( B` and friends carry intermediates before their final; `ESC \`, `ESC 7` … end here.
        this.state = unit < 0x30 ? State.EscapeIntermediate : State.Ground;
    }
  }

  private csi(unit: number): void {
    if (unit >= 0x40) {
      this.state = State.Ground;
      if (!this.csiIgnored) this.dispatchCsi(unit);
    } else if (unit >= 0x30 && unit <= 0x39) {
      if (this.csiInFirstParam) this.csiFirstParam = Math.max(this.csiFirstParam, 0) * 10 + (unit - 0x30);
    } else if (unit === 0x3b || unit === 0x3a) {
      this.csiInFirstParam = false;
    } else {
      // Private markers (`?`, `>` …) and intermediates: never one of the in-line sequences applied here.
      this.csiIgnored = true;
    }
  }

  private dispatchCsi(final: number): void {
    const param = this.csiFirstParam;
    // A terminal clamps cursor moves at its right margin; the widest one we allow stands in for it.
    const count = Math.min(Math.max(param, 1), MAX_TERMINAL_DIMENSION);
    switch (final) {
      case 0x4b: // K: erase in line
        this.eraseInLine(Math.max(param, 0));
        return;
      case 0x47: // G: cursor to column (1-based)
        this.cursor = count - 1;
        return;
      case 0x43: // C: cursor forward, at most a screen width past the text so padding stays bounded
        this.cursor = Math.max(this.cursor, Math.min(this.cursor + count, this.length + MAX_TERMINAL_DIMENSION));
        return;
      case 0x44: // D: cursor back
        this.cursor = Math.max(this.cursor - count, 0);
        return;
      default:
        return;
    }
  }

  // ── Text and controls ──────────────────────────────────────────────────────────────────────

  private ground(unit: number, completed: string[]): void {
    switch (unit) {
      case ESC:
        this.enterEscape();
        return;
      case C1_CSI:
        this.enterCsi();
        this.sequenceChars = 1;
        return;
      case C1_OSC:
        this.state = State.Osc;
        this.sequenceChars = 1;
        return;
      case C1_DCS:
      case C1_SOS:
      case C1_PM:
      case C1_APC:
        this.state = State.EscapeString;
        this.sequenceChars = 1;
        return;
      default:
        // Only C0/C1 controls and DEL reach here: plain text is taken a run at a time.
        this.control(unit, completed);
    }
  }

  /** The controls that act on the line; every other C0/C1 control has no visible effect and is dropped. */
  private control(unit: number, completed: string[]): void {
    switch (unit) {
      case LF:
        completed.push(this.partial());
        this.newLine();
        return;
      case CR:
        this.cursor = 0;
        return;
      case BS:
        if (this.cursor > 0) this.cursor--;
        return;
      case TAB:
        this.put('\t');
        return;
      default:
        return;
    }
  }

  // ── The current line ───────────────────────────────────────────────────────────────────────

  /** Writes printable text (surrogate pairs whole) at the cursor. */
  private put(run: string): void {
    this.partialCache = undefined;
    if (this.cells === undefined && this.cursor >= this.length) {
      // Appending: the line stays a string. The cursor is at most a screen width past the end, so is the padding.
      const padding = this.cursor - this.length;
      // Plain runs hold no surrogates (they stop at any); a pair is put on its own.
      if (isHigh(run.charCodeAt(0))) this.textHasPairs = true;
      this.text += padding > 0 ? ' '.repeat(padding) + run : run;
      this.length += padding + run.length;
      this.cursor = this.length;
    } else {
      for (let i = 0; i < run.length; i++) {
        const unit = run.charCodeAt(i);
        if (isHigh(unit)) {
          this.writeCell(unit, run.charCodeAt(i + 1));
          i++;
        } else {
          this.writeCell(unit);
        }
      }
    }
    this.cutHead();
  }

  private writeCell(first: number, second?: number): void {
    const at = this.cursor;
    const end = second === undefined ? at + 1 : at + 2;
    const base = this.base;
    const cells = this.reserve(end - base);
    const padFrom = Math.max(this.length, base);
    if (at > padFrom) cells.fill(SPACE, padFrom - base, at - base);
    if (at < base) {
      // Its columns were cut off; only the part reaching the kept columns shows, as blanks.
      if (end > base) cells.fill(SPACE, 0, end - base);
    } else {
      const index = at - base;
      // Overwriting half of an earlier pair leaves its other half blank, like a clobbered wide character.
      if (at < this.length && index > 0 && isLow(cells[index] ?? 0) && isHigh(cells[index - 1] ?? 0)) cells[index - 1] = SPACE;
      cells[index] = first;
      if (second !== undefined) cells[index + 1] = second;
    }
    this.length = Math.max(this.length, end);
    const after = end - base;
    if (end < this.length && after > 0 && isLow(cells[after] ?? 0) && !isHigh(cells[after - 1] ?? 0)) cells[after] = SPACE;
    this.cursor = end;
  }

  private eraseInLine(mode: number): void {
    if (mode > 2) return;
    this.partialCache = undefined;
    // Erasing everything (after \r, typically) leaves blanks only, which is an empty line: back to the start.
    if (mode === 2 || (mode === 1 && this.cursor + 1 >= this.length) || (mode === 0 && this.cursor === 0)) {
      this.clearCells();
      // A terminal's cursor is never past its right margin; keeping it close keeps the next write's padding small.
      this.cursor = Math.min(this.cursor, MAX_TERMINAL_DIMENSION - 1);
      return;
    }
    if (this.cursor >= this.length) return;
    const cells = this.toCells();
    const base = this.base;
    if (mode === 0) {
      this.length = this.cursor;
      const last = this.length - base - 1;
      if (last >= 0 && isHigh(cells[last] ?? 0)) cells[last] = SPACE;
    } else if (this.cursor >= base) {
      cells.fill(SPACE, 0, this.cursor - base + 1);
      if (isLow(cells[this.cursor - base + 1] ?? 0)) cells[this.cursor - base + 1] = SPACE;
    }
  }

  private toCells(): Uint16Array {
    if (this.cells !== undefined) return this.cells;
    const text = this.text;
    const cells = new Uint16Array(Math.max(INITIAL_LINE_CELLS, 2 * text.length));
    for (let i = 0; i < text.length; i++) cells[i] = text.charCodeAt(i);
    this.cells = cells;
    this.text = '';
    return cells;
  }

  private reserve(size: number): Uint16Array {
    const cells = this.toCells();
    if (size <= cells.length) return cells;
    const grown = new Uint16Array(Math.max(size, 2 * cells.length));
    grown.set(cells.subarray(0, Math.max(this.length - this.base, 0)));
    this.cells = grown;
    return grown;
  }

  /**
   * Drops the head of a line far longer than the bound. The cut point is a function of the longest the line has
   * been, so it is the same however the text arrived; it keeps at least `maxLineChars + 1` and at most twice the
   * bound (+1) of the newest columns, so cutting costs O(1) amortized per char.
   */
  private cutHead(): void {
    this.peak = Math.max(this.peak, this.length);
    const max = this.maxLineChars;
    if (this.peak <= 2 * max) return;
    const base = Math.floor((this.peak - max - 1) / max) * max;
    if (base <= this.base) return;
    const kept = Math.max(this.length - base, 0);
    if (this.cells === undefined) {
      this.text = this.text.slice(this.text.length - kept);
    } else if (kept > 0) {
      this.cells.copyWithin(0, base - this.base, this.length - this.base);
    }
    this.base = base;
  }

  private newLine(): void {
    this.cursor = 0;
    this.cells = undefined;
    this.clearCells();
  }

  private clearCells(): void {
    this.text = '';
    this.textHasPairs = false;
    this.base = 0;
    this.length = 0;
    this.peak = 0;
    this.partialCache = '';
  }

  /** Where the visible line starts: within the line bound, and never on the second half of a cut pair. */
  private visibleStart(): number {
    const start = Math.max(this.length - this.maxLineChars, this.base);
    if (this.cells === undefined && !this.textHasPairs) return start;
    return start < this.length && isLow(this.unitAt(start)) ? start + 1 : start;
  }

  private unitAt(column: number): number {
    return this.cells === undefined ? this.text.charCodeAt(column - this.base) : (this.cells[column - this.base] ?? 0);
  }

  private render(): string {
    const start = this.visibleStart();
    if (start >= this.length) return '';
    if (this.cells === undefined) return this.text.slice(start - this.base);
    let text = '';
    for (let from = start - this.base, end = this.length - this.base; from < end; from += DECODE_SLICE) {
      const slice = this.cells.subarray(from, Math.min(from + DECODE_SLICE, end));
      text += String.fromCharCode.apply(null, slice as unknown as number[]);
    }
    return text;
  }
}
