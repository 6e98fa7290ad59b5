import { MAX_TERMINAL_DIMENSION } from '../limits.js';
import { charColumns } from '../text/char-width.js';
import { isHighSurrogate as isHigh, isLowSurrogate as isLow } from '../text/surrogates.js';
import { AppendedRuns } from './appended-runs.js';
import { type ByteRing, keptSlice, type RingSpan } from './byte-ring.js';

const SPACE = 0x20;
/** Text a terminal shows as an empty row. */
export const ONLY_SPACES = /^ *$/;
const SURROGATE = /[\ud800-\udfff]/;
/** The cell after a wide character's (it takes two columns); no code point, so no text can be mistaken for it. */
const WIDE_TAIL = 0x110000;
/** First capacity of a line's cells; it doubles as the line grows. */
const INITIAL_LINE_CELLS = 256;
/**
 * A line far longer than the bound is cut in steps of this fraction of the bound: it keeps between the bound + 1 and
 * the bound + a quarter of the newest columns (only the newest `maxChars` ever show). A quarter, not the whole bound:
 * a long line kept as bytes (ByteRing) holds its part of the ring for as long as it keeps its columns.
 */
export const CUT_STEPS_PER_BOUND = 4;
/** `String.fromCharCode.apply` takes its code units as arguments, so long lines go through in slices. */
const DECODE_SLICE = 8_192;

/** A line as a scanner checks that it was only appended to between two looks (see LineCells.rewrites). */
export interface AppendedLine {
  readonly rewrites: number;
  readonly end: number;
}

/**
 * The terminal line being written, with its cursor: text overwrites in place where the cursor is, erases
 * blank it, and a line far longer than `maxLineChars` keeps its newest columns.
 *
 * A line is a plain string while text only appends to it (the common case, no per-char work); the first overwrite
 * or partial erase turns it into a cell array, so rewriting a long line costs O(what is written), never O(line).
 * Cells are columns, as a terminal's: a code point each, and a wide character (CJK, emoji) a second cell after it
 * (WIDE_TAIL), so `\r`, backspace and cursor moves land where they do on a terminal. A plain string counts UTF-16
 * units, which are columns only while it holds no wide character and no pair: before a cursor move on one that does,
 * the line becomes cells.
 */
export class LineCells implements AppendedLine {
  // The line, in absolute columns. Columns below `base` were cut off a line far longer than the bound.
  /** The line while it has only been appended to: columns `base..length`. */
  private readonly runs: AppendedRuns;
  /**
   * The line once something overwrote, partly erased or moved the cursor back on a line of wide characters (until it
   * ends), a code point or WIDE_TAIL per column; `runs` is unused meanwhile.
   */
  private cells: Uint32Array | undefined;
  private base = 0;
  private length = 0;
  private cursor = 0;
  /**
   * Counts the lines begun, so that a saved cursor is restored only on the line it was saved on. Nothing saved, a
   * terminal restores its home position: the first line's column 0.
   */
  private lineSerial = 0;
  private savedOnLine = 0;
  private savedCursor = 0;
  /** Longest the line has been; the cut point follows from it alone, so it is the same for any chunking. */
  private peak = 0;
  private partialCache: string | undefined = '';
  /** Counts the times the line's text was dropped or turned into cells (see `rewrites`). */
  private rewriteCount = 0;
  /** Where `partialTailAscii` joins a tail that spans more than one span (made on first need). */
  private tailScratch: Buffer | undefined;

  constructor(
    readonly maxChars: number,
    private readonly ring?: ByteRing,
  ) {
    this.runs = new AppendedRuns(ring);
  }

  /** The ring offset of the oldest span the line holds, or `none` when it holds none: see ByteRing.write. */
  oldestSpanOr(none: number): number {
    return this.runs.oldestSpanOr(none);
  }

  /**
   * How often the line's text was dropped (a new line, an erase) or turned into cells (an overwrite, a cursor move
   * back): while it reads the same, the line was only appended to, so every column before `end` holds what it held
   * when this count and an earlier `end` were read (a head cut for the bound drops columns, never changes one). What a
   * scanner that ruled a long line out needs to look only at what came since (OutputScanner).
   */
  get rewrites(): number {
    return this.rewriteCount;
  }

  /** The absolute column after the line's last character (columns cut from its head included). */
  get end(): number {
    return this.length;
  }

  /** Nothing written and the cursor home: a whole plain line put now is exactly the line as written. */
  get isFresh(): boolean {
    return this.length === 0 && this.cursor === 0 && this.cells === undefined;
  }

  /** The line as it looks now (cached until it changes). */
  partial(): string {
    if (this.partialCache !== undefined) return this.partialCache;
    const text = this.render();
    // A line kept as bytes is not kept a second time as its text (up to the bound, per PTY): it is made per read.
    if (!this.runs.holdsSpans) this.partialCache = text;
    return text;
  }

  /** The first `limit` characters of `partial()`; of a line only appended to, from the runs they are in. */
  partialHead(limit: number): string {
    if (this.partialCache !== undefined || this.cells !== undefined) return this.partial().slice(0, limit);
    const start = this.visibleStart();
    if (start >= this.length) return '';
    const from = start - this.base;
    return this.runs.slice(from, from + limit);
  }

  /**
   * The bytes of `partialTail(limit)` when all of its characters are ASCII and the line is still only appended to:
   * in place when one span (ring bytes) holds them, else joined into a scratch buffer of this line's, ASCII text
   * runs written in as bytes; valid only until the next write. Undefined when a character is not ASCII or the line
   * was rewritten (then make the string). What a scanner looks in for a required literal before it makes the tail's
   * text after every chunk of a flood with no line feed (whose short chunks are text runs between the spans).
   */
  partialTailAscii(limit: number): Uint8Array | undefined {
    if (this.ring === undefined || this.partialCache !== undefined || this.cells !== undefined) return undefined;
    const need = Math.max(this.length - Math.max(this.visibleStart(), this.length - limit), 0);
    if (this.tailScratch === undefined || this.tailScratch.length < need) this.tailScratch = Buffer.allocUnsafe(limit);
    return this.runs.tailAscii(need, this.tailScratch);
  }

  /**
   * The last `limit` characters of `partial()`: the runs (or cells) they are in, not the whole line. Of cells, the last
   * `limit` columns, a wide character cut by the limit whole.
   */
  partialTail(limit: number): string {
    const visible = this.visibleStart();
    const start = Math.max(visible, this.length - limit);
    if (start >= this.length) return '';
    if (this.cells !== undefined) {
      return this.decode(start > visible && this.cells[start - this.base] === WIDE_TAIL ? start - 1 : start);
    }
    if (this.partialCache !== undefined) return this.partialCache.slice(-(this.length - start));
    return this.runs.tail(this.length - start);
  }

  /**
   * The columns of a line longer than the bound that were dropped from its head (what `partial()` leaves out before
   * its first character); 0 for any line within the bound.
   */
  get headDropped(): number {
    return this.base === 0 && this.length <= this.maxChars ? 0 : this.visibleStart();
  }

  /** Length of `partial()` without building it (in columns: a wide character counts two). */
  get partialLength(): number {
    return Math.max(this.length - this.visibleStart(), 0);
  }

  /**
   * The line when it is one span of plain bytes, only appended to, with the cursor at its end and nothing cut off:
   * then the span is the line exactly as written. Undefined otherwise.
   */
  get plainSpan(): RingSpan | undefined {
    if (this.cells !== undefined || this.base !== 0 || this.cursor !== this.length) return undefined;
    return this.runs.onlySpan;
  }

  /** Starts a new line with the cursor home, as `take` does, for a caller that has the line's text already. */
  discard(): void {
    this.newLine();
  }

  /** Nothing but spaces on the line: a terminal shows its row empty. */
  get isBlank(): boolean {
    return this.length === 0 || (this.length <= MAX_TERMINAL_DIMENSION && ONLY_SPACES.test(this.partial()));
  }

  /** The cursor's column (on a line within the bound, where columns start at 0). */
  get column(): number {
    return this.cursor - this.base;
  }

  /**
   * The cursor went onto a row that holds `text` (a line this one finished, see HeldRows and RowsAbove): that becomes
   * the line, the cursor in `column` (by default the one it was in on a blank line, where the cursor counts columns).
   */
  reopen(text: string, column = this.cursor): void {
    this.newLine();
    // As the renderer puts text: runs without surrogates, and each pair on its own.
    for (let from = 0; from < text.length; ) {
      const pair = text.slice(from).search(SURROGATE);
      const end = pair === -1 ? text.length : from + pair;
      if (end > from) this.put(text.slice(from, end));
      if (end < text.length) this.put(text.slice(end, end + 2));
      from = end + 2;
    }
    this.cursorToColumn(column);
  }

  /** Returns the line as it looks and starts a new one with the cursor home. */
  take(): string {
    const line = this.partial();
    this.newLine();
    return line;
  }

  carriageReturn(): void {
    this.cursor = 0;
  }

  backspace(): void {
    this.inColumns();
    if (this.cursor > 0) this.cursor--;
  }

  /** `CSI G`: to a 0-based column. */
  cursorToColumn(column: number): void {
    this.inColumns();
    this.cursor = column;
  }

  /** `CSI C`: at most a screen width past the text, so the padding a later write adds stays bounded. */
  cursorForward(count: number): void {
    this.inColumns();
    this.cursor = Math.max(this.cursor, Math.min(this.cursor + count, this.length + MAX_TERMINAL_DIMENSION));
  }

  /** `CSI D`. */
  cursorBack(count: number): void {
    this.inColumns();
    this.cursor = Math.max(this.cursor - count, 0);
  }

  /**
   * Makes the cursor and length count columns: a string holding wide characters or pairs counts units, so it becomes
   * cells before a cursor move or edit is measured against it. (`\r` needs none: column 0 is unit 0.)
   */
  private inColumns(): void {
    if (this.cells === undefined && (this.runs.mayHoldWide || this.runs.mayHoldPairs)) this.toCells();
  }

  /** Writes printable text (surrogate pairs whole) at the cursor. */
  put(run: string): void {
    this.partialCache = undefined;
    if (this.cells === undefined && this.cursor >= this.length) {
      // Appending: the line stays a string. The cursor is at most a screen width past the end, so is the padding.
      const padding = this.cursor - this.length;
      this.runs.pad(padding);
      this.runs.append(run);
      this.length += padding + run.length;
      this.cursor = this.length;
    } else {
      for (let i = 0; i < run.length; i++) {
        const unit = run.charCodeAt(i);
        if (isHigh(unit)) {
          this.writeCell(run.codePointAt(i) as number);
          i++;
        } else {
          this.writeCell(unit);
        }
      }
    }
    this.cutHead();
  }

  /**
   * Plain ASCII text (no control, no surrogate) kept as bytes in the buffer's ring: what `put` does with its text,
   * without the text while the line is only appended to (a flood with no line feed keeps up to the bound of it).
   */
  putKept(span: RingSpan): void {
    if (this.cells !== undefined || this.cursor < this.length) {
      this.put(keptSlice(this.ring, span));
      return;
    }
    this.partialCache = undefined;
    const padding = this.cursor - this.length;
    this.runs.pad(padding);
    this.runs.appendSpan(span);
    this.length += padding + span.length;
    this.cursor = this.length;
    this.cutHead();
  }

  private writeCell(codePoint: number): void {
    const at = this.cursor;
    const wide = charColumns(codePoint) === 2;
    const end = wide ? at + 2 : at + 1;
    const base = this.base;
    const cells = this.reserve(end - base);
    const padFrom = Math.max(this.length, base);
    if (at > padFrom) cells.fill(SPACE, padFrom - base, at - base);
    if (at < base) {
      // Its columns were cut off; only the part reaching the kept columns shows, as blanks.
      if (end > base) cells.fill(SPACE, 0, end - base);
    } else {
      const index = at - base;
      // Overwriting the second column of a wide character leaves its first blank, as a terminal does.
      if (at < this.length && index > 0 && cells[index] === WIDE_TAIL) cells[index - 1] = SPACE;
      cells[index] = codePoint;
      if (wide) cells[index + 1] = WIDE_TAIL;
    }
    this.length = Math.max(this.length, end);
    // The second column of a wide character whose first this write took is left blank.
    const after = end - base;
    if (end < this.length && after > 0 && cells[after] === WIDE_TAIL) cells[after] = SPACE;
    this.cursor = end;
  }

  /** `CSI K` with its mode: 0 cursor to end, 1 start to cursor, 2 the whole line. */
  eraseInLine(mode: number): void {
    if (mode > 2) return;
    this.inColumns();
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
      if (last >= 0 && isWideCell(cells[last] as number)) cells[last] = SPACE;
    } else if (this.cursor >= base) {
      cells.fill(SPACE, 0, this.cursor - base + 1);
      if (cells[this.cursor - base + 1] === WIDE_TAIL) cells[this.cursor - base + 1] = SPACE;
    }
  }

  /** `ESC 7` / `CSI s`: remembers the cursor's column on this line. */
  saveCursor(): void {
    this.inColumns();
    this.savedCursor = this.cursor;
    this.savedOnLine = this.lineSerial;
  }

  /**
   * `ESC 8` / `CSI u`: back to the saved column when it was saved on this line. Saved on an earlier line, the cursor
   * would go back up to it, which a line already finished cannot take: the cursor stays.
   */
  restoreCursor(): void {
    if (this.savedOnLine === this.lineSerial) this.cursor = this.savedCursor;
  }

  /**
   * `CSI P` (DCH): deletes `count` characters at the cursor; those after them move left. What a shell's line editor
   * sends for a deletion in the middle of the line.
   */
  deleteChars(count: number): void {
    this.inColumns();
    if (this.cursor >= this.length || this.cursor < this.base || this.beyondOneRow()) return;
    this.partialCache = undefined;
    const cells = this.toCells();
    const at = this.cursor - this.base;
    const gone = Math.min(count, this.length - this.cursor);
    // The halves of two wide characters can meet here, each without its own: both go blank, as on a terminal.
    const leadLosesTail = at > 0 && cells[at] === WIDE_TAIL;
    const tailLosesLead = this.cursor + gone < this.length && cells[at + gone] === WIDE_TAIL;
    cells.copyWithin(at, at + gone, this.length - this.base);
    this.length -= gone;
    if (leadLosesTail) cells[at - 1] = SPACE;
    if (tailLosesLead) cells[at] = SPACE;
  }

  /** `CSI @` (ICH): inserts `count` blanks at the cursor; the characters from it move right. */
  insertBlanks(count: number): void {
    this.inColumns();
    if (this.cursor >= this.length || this.cursor < this.base || this.beyondOneRow()) return;
    this.partialCache = undefined;
    const at = this.cursor - this.base;
    const inserted = Math.min(count, MAX_TERMINAL_DIMENSION);
    const cells = this.reserve(this.length - this.base + inserted);
    cells.copyWithin(at + inserted, at, this.length - this.base);
    cells.fill(SPACE, at, at + inserted);
    this.length += inserted;
    this.mendPairsAt(at);
    this.mendPairsAt(at + inserted);
    this.cutHead();
  }

  /** `CSI X` (ECH): blanks `count` characters from the cursor, which stays; erased to the end, they are gone. */
  eraseChars(count: number): void {
    this.inColumns();
    if (this.cursor >= this.length) return;
    if (this.cursor + count >= this.length) {
      this.eraseInLine(0);
      return;
    }
    if (this.cursor < this.base) return;
    this.partialCache = undefined;
    const cells = this.toCells();
    const at = this.cursor - this.base;
    cells.fill(SPACE, at, at + count);
    this.mendPairsAt(at);
    this.mendPairsAt(at + count);
  }

  /**
   * More of the line after the cursor than the widest terminal row: a terminal deletes and inserts within the cursor's
   * row, and shifting the rest of a line of up to the bound for each sequence would make a flood of them quadratic
   * (a 900,000-character line and `\r ESC[@ ESC[P` repeated held the loop 0.8 s per 60 KB). Such an edit is left out.
   */
  private beyondOneRow(): boolean {
    return this.length - this.cursor > MAX_TERMINAL_DIMENSION;
  }

  /** Where `index` (into the cells) now joins two runs: half a wide character left alone there becomes a blank. */
  private mendPairsAt(index: number): void {
    const cells = this.cells;
    if (cells === undefined) return;
    const end = this.length - this.base;
    const tailAt = index < end && cells[index] === WIDE_TAIL;
    const wideBefore = index > 0 && index - 1 < end && isWideCell(cells[index - 1] as number);
    if (tailAt && !wideBefore) cells[index] = SPACE;
    if (wideBefore && !tailAt) cells[index - 1] = SPACE;
  }

  /**
   * The line as cells. Its text counted UTF-16 units, so the length, and a cursor at or past the end, move by the
   * columns its wide characters and pairs add or take.
   */
  private toCells(): Uint32Array {
    if (this.cells !== undefined) return this.cells;
    const text = this.runs.text();
    const cells = new Uint32Array(Math.max(INITIAL_LINE_CELLS, 2 * text.length));
    let count = 0;
    if (this.runs.mayHoldWide || this.runs.mayHoldPairs) {
      for (let i = 0; i < text.length; i++) {
        const codePoint = text.codePointAt(i) as number;
        if (codePoint > 0xffff) i++;
        cells[count++] = codePoint;
        if (charColumns(codePoint) === 2) cells[count++] = WIDE_TAIL;
      }
    } else {
      for (let i = 0; i < text.length; i++) cells[i] = text.charCodeAt(i);
      count = text.length;
    }
    const shift = count - text.length;
    if (this.cursor >= this.length) this.cursor += shift;
    this.length += shift;
    this.peak = Math.max(this.peak, this.length);
    this.cells = cells;
    this.dropRuns();
    return cells;
  }

  private reserve(size: number): Uint32Array {
    const cells = this.toCells();
    if (size <= cells.length) return cells;
    const grown = new Uint32Array(Math.max(size, 2 * cells.length));
    grown.set(cells.subarray(0, Math.max(this.length - this.base, 0)));
    this.cells = grown;
    return grown;
  }

  /**
   * Drops the head of a line far longer than the bound. The cut point is a function of the longest the line has
   * been, so it is the same however the text arrived; it keeps at least `maxLineChars + 1` and at most the bound + a
   * step (CUT_STEPS_PER_BOUND) + 1 of the newest columns, so cutting costs O(1) amortized per char.
   */
  private cutHead(): void {
    this.peak = Math.max(this.peak, this.length);
    const max = this.maxChars;
    const step = Math.max(Math.floor(max / CUT_STEPS_PER_BOUND), 1);
    if (this.peak <= max + step) return;
    const base = Math.floor((this.peak - max - 1) / step) * step;
    if (base <= this.base) return;
    const kept = Math.max(this.length - base, 0);
    if (this.cells === undefined) {
      this.runs.dropHead(this.length - this.base - kept);
    } else if (kept > 0) {
      this.cells.copyWithin(0, base - this.base, this.length - this.base);
    }
    this.base = base;
  }

  private newLine(): void {
    this.lineSerial++;
    this.cursor = 0;
    this.cells = undefined;
    this.clearCells();
  }

  private dropRuns(): void {
    this.rewriteCount++;
    this.runs.clear();
  }

  private clearCells(): void {
    this.dropRuns();
    this.base = 0;
    this.length = 0;
    this.peak = 0;
    this.partialCache = '';
  }

  /** Where the visible line starts: within the line bound, and never on the second half of a cut pair or wide character. */
  private visibleStart(): number {
    const start = Math.max(this.length - this.maxChars, this.base);
    if (start >= this.length) return start;
    if (this.cells !== undefined) return this.cells[start - this.base] === WIDE_TAIL ? start + 1 : start;
    return this.runs.mayHoldPairs && isLow(this.runs.unitAt(start - this.base)) ? start + 1 : start;
  }

  private render(): string {
    const start = this.visibleStart();
    if (start >= this.length) return '';
    if (this.cells === undefined) return this.runs.joined().slice(start - this.base);
    return this.decode(start);
  }

  /** The cells from absolute column `start` to the end, as a string: their code points, wide characters' tails left out. */
  private decode(start: number): string {
    const cells = this.cells as Uint32Array;
    let text = '';
    for (let from = start - this.base, end = this.length - this.base; from < end; from += DECODE_SLICE) {
      const slice = cells.subarray(from, Math.min(from + DECODE_SLICE, end));
      text += allBelow(slice, 0x10000)
        ? String.fromCharCode.apply(null, slice as unknown as number[])
        : String.fromCodePoint.apply(
            null,
            Array.from(slice).filter((cell) => cell !== WIDE_TAIL),
          );
    }
    return text;
  }
}

function allBelow(cells: Uint32Array, limit: number): boolean {
  for (let i = 0; i < cells.length; i++) if ((cells[i] as number) >= limit) return false;
  return true;
}

/** Whether a cell holds a character two columns wide (its next cell is then its WIDE_TAIL). */
function isWideCell(cell: number): boolean {
  return cell !== WIDE_TAIL && charColumns(cell) === 2;
}
