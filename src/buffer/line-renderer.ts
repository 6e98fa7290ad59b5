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

/** First capacity of the line's cells; it doubles as a line grows (up to twice the line bound). */
const INITIAL_LINE_CELLS = 64;
/** `String.fromCharCode.apply` takes its code units as arguments, so large lines go through in slices. */
const DECODE_SLICE = 8_192;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

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
 * applied, because progress output relies on them as much as on `\r`. Everything else that would need a screen
 * (cursor up, scroll regions, alternate screen) cannot be expressed in a line log and is simply dropped.
 *
 * The current line is a cell array with a cursor, as on a terminal: `\r` and `\b` only move the cursor and later
 * text overwrites in place, so a `\r` at the end of a chunk needs no look-ahead (`\r\n` and `\n` both end the line
 * with the cells as they are). All parser state lives in fields, so any chunk split renders the same.
 */
export class LineRenderer {
  private readonly maxLineChars: number;
  private readonly maxSequenceChars: number;
  /** Cells may run to twice the line bound before the head is cut, so cutting costs O(1) amortized per char. */
  private readonly trimAt: number;

  private cells = new Uint16Array(INITIAL_LINE_CELLS);
  private length = 0;
  private cursor = 0;
  private partialCache: string | undefined = '';

  private state = State.Ground;
  private sequenceChars = 0;
  private csiFirstParam = -1;
  private csiInFirstParam = true;
  private csiIgnored = false;
  /** A high surrogate ending a chunk waits for its low half, so a pair split by the chunking stays one cell group. */
  private pendingHigh = '';

  constructor(options: LineRendererOptions = {}) {
    this.maxLineChars = positiveInteger('maxLineChars', options.maxLineChars ?? MAX_BUFFER_CHARS);
    this.maxSequenceChars = positiveInteger('maxSequenceChars', options.maxSequenceChars ?? MAX_ESCAPE_SEQUENCE_CHARS);
    this.trimAt = 2 * this.maxLineChars;
  }

  /** Feeds a chunk; returns the lines it completed, oldest first. */
  push(chunk: string): string[] {
    const text = this.pendingHigh + chunk;
    this.pendingHigh = '';
    const completed: string[] = [];
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (this.state !== State.Ground && !this.consumeInSequence(unit, completed)) continue;
      if (isHigh(unit)) {
        if (i + 1 === text.length) {
          this.pendingHigh = text[i] ?? '';
        } else if (isLow(text.charCodeAt(i + 1))) {
          this.write(unit, text.charCodeAt(i + 1));
          i++;
        } else {
          this.write(unit);
        }
        continue;
      }
      this.ground(unit, completed);
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
    return this.length - this.visibleStart();
  }

  /** Ends the stream: an unfinished escape sequence is dropped and a non-empty current line is completed. */
  flush(): string[] {
    const completed: string[] = [];
    if (this.pendingHigh !== '') {
      this.write(this.pendingHigh.charCodeAt(0));
      this.pendingHigh = '';
    }
    this.state = State.Ground;
    if (this.length > 0) completed.push(this.render());
    this.clearLine();
    return completed;
  }

  /**
   * One unit while inside an escape sequence. Returns true when the unit must be handled as ground text
   * (the sequence was abandoned or aborted by it), false when the sequence consumed it.
   */
  private consumeInSequence(unit: number, completed: string[]): boolean {
    if (++this.sequenceChars > this.maxSequenceChars) {
      this.state = State.Ground;
      return true;
    }
    if (unit === ESC) {
      // Inside a string this is the start of its `ESC \` terminator; inside anything else it restarts.
      this.enterEscape();
      return false;
    }
    if (unit === CAN || unit === SUB) {
      this.state = State.Ground;
      return false;
    }
    switch (this.state) {
      case State.Osc:
        if (unit === BEL || unit === C1_ST) this.state = State.Ground;
        return false;
      case State.EscapeString:
        if (unit === C1_ST) this.state = State.Ground;
        return false;
      default:
        break;
    }
    // Escape and CSI states: C0 controls still act (as a VT parser executes them), DEL is ignored,
    // anything beyond ASCII cannot belong to the sequence, so it ends it and is read as text.
    if (unit === DEL) return false;
    if (unit > DEL) {
      this.state = State.Ground;
      return true;
    }
    if (isC0(unit)) {
      this.control(unit, completed);
      return false;
    }
    switch (this.state) {
      case State.Escape:
        this.escape(unit);
        return false;
      case State.EscapeIntermediate:
        if (unit >= 0x30) this.state = State.Ground;
        return false;
      case State.Csi:
        this.csi(unit);
        return false;
      default:
        return false;
    }
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
        // `ESC ( B` and friends carry intermediates before their final; `ESC \` and other pairs end here.
        this.state = unit < 0x30 ? State.EscapeIntermediate : State.Ground;
    }
  }

  private csi(unit: number): void {
    if (unit >= 0x40) {
      this.state = State.Ground;
      if (!this.csiIgnored) this.dispatchCsi(unit);
      return;
    }
    if (unit >= 0x30 && unit <= 0x39) {
      if (this.csiInFirstParam) this.csiFirstParam = Math.max(this.csiFirstParam, 0) * 10 + (unit - 0x30);
    } else if (unit === 0x3b || unit === 0x3a) {
      this.csiInFirstParam = false;
    } else {
      // Private markers (`?`, `>` …) and intermediates: not one of the in-line sequences we apply.
      this.csiIgnored = true;
    }
  }

  private dispatchCsi(final: number): void {
    const param = this.csiFirstParam;
    const count = Math.min(Math.max(param, 1), MAX_TERMINAL_DIMENSION);
    switch (final) {
      case 0x4b: // K: erase in line
        this.eraseInLine(Math.max(param, 0));
        return;
      case 0x47: // G: cursor to column (1-based), never past a column a terminal could have
        this.cursor = Math.min(count - 1, this.trimAt);
        return;
      case 0x43: // C: cursor forward
        this.cursor = Math.min(this.cursor + count, this.trimAt);
        return;
      case 0x44: // D: cursor back
        this.cursor = Math.max(this.cursor - count, 0);
        return;
      default:
        return;
    }
  }

  private ground(unit: number, completed: string[]): void {
    if (unit === ESC) {
      this.enterEscape();
      return;
    }
    if (unit === C1_CSI) {
      this.enterCsi();
      this.sequenceChars = 1;
      return;
    }
    if (unit === C1_OSC || unit === C1_DCS || unit === C1_SOS || unit === C1_PM || unit === C1_APC) {
      this.state = unit === C1_OSC ? State.Osc : State.EscapeString;
      this.sequenceChars = 1;
      return;
    }
    if (isC0(unit) || (unit >= DEL && unit < 0xa0)) {
      this.control(unit, completed);
      return;
    }
    this.write(unit);
  }

  /** The controls that act on the line; every other C0/C1 control has no visible effect and is dropped. */
  private control(unit: number, completed: string[]): void {
    switch (unit) {
      case LF:
        completed.push(this.partial());
        this.clearLine();
        return;
      case CR:
        this.cursor = 0;
        return;
      case BS:
        if (this.cursor > 0) this.cursor--;
        return;
      case TAB:
        this.write(TAB);
        return;
      default:
        return;
    }
  }

  /** Writes one cell group (a code unit, or a surrogate pair) at the cursor, padding with blanks up to it. */
  private write(first: number, second?: number): void {
    const width = second === undefined ? 1 : 2;
    const at = this.cursor;
    const end = at + width;
    this.reserve(end);
    const cells = this.cells;
    if (at > this.length) cells.fill(SPACE, this.length, at);
    // Overwriting half of an earlier pair leaves its other half blank, like a clobbered wide character.
    if (at < this.length && at > 0 && isLow(cells[at] ?? 0) && isHigh(cells[at - 1] ?? 0)) cells[at - 1] = SPACE;
    cells[at] = first;
    if (second !== undefined) cells[at + 1] = second;
    this.length = Math.max(this.length, end);
    if (end < this.length && isLow(cells[end] ?? 0) && !isHigh(cells[end - 1] ?? 0)) cells[end] = SPACE;
    this.cursor = end;
    this.partialCache = undefined;
    if (this.length > this.trimAt) this.trimHead();
  }

  private eraseInLine(mode: number): void {
    const cells = this.cells;
    if (mode === 0) {
      if (this.cursor >= this.length) return;
      this.length = this.cursor;
      if (this.length > 0 && isHigh(cells[this.length - 1] ?? 0)) cells[this.length - 1] = SPACE;
    } else if (mode === 1) {
      if (this.cursor >= this.length - 1) {
        this.length = 0;
      } else {
        cells.fill(SPACE, 0, this.cursor + 1);
        if (isLow(cells[this.cursor + 1] ?? 0)) cells[this.cursor + 1] = SPACE;
      }
    } else if (mode === 2) {
      // Erased cells are blanks; leaving them virtual (beyond `length`) keeps a shorter rewrite free of trailing spaces.
      this.length = 0;
    } else {
      return;
    }
    this.partialCache = undefined;
  }

  private reserve(size: number): void {
    if (size <= this.cells.length) return;
    let capacity = this.cells.length;
    while (capacity < size) capacity *= 2;
    const grown = new Uint16Array(Math.min(capacity, this.trimAt + 2));
    grown.set(this.cells.subarray(0, this.length));
    this.cells = grown;
  }

  /** Keeps the newest `maxLineChars` cells; the cursor moves with the text it points into. */
  private trimHead(): void {
    let cut = this.length - this.maxLineChars;
    if (isLow(this.cells[cut] ?? 0)) cut++;
    this.cells.copyWithin(0, cut, this.length);
    this.length -= cut;
    this.cursor = Math.max(this.cursor - cut, 0);
  }

  /** Where the visible line starts: within the line bound, and never on the second half of a cut pair. */
  private visibleStart(): number {
    const start = Math.max(this.length - this.maxLineChars, 0);
    return start > 0 && isLow(this.cells[start] ?? 0) ? start + 1 : start;
  }

  private render(): string {
    let text = '';
    for (let from = this.visibleStart(); from < this.length; from += DECODE_SLICE) {
      const slice = this.cells.subarray(from, Math.min(from + DECODE_SLICE, this.length));
      text += String.fromCharCode.apply(null, slice as unknown as number[]);
    }
    return text.replace(LONE_SURROGATE, '\uFFFD');
  }

  private clearLine(): void {
    this.length = 0;
    this.cursor = 0;
    this.partialCache = '';
  }
}
