import { LINE_OVERHEAD_CHARS, MAX_BUFFER_CHARS, MAX_ESCAPE_SEQUENCE_CHARS, MAX_RAW_CHARS } from '../limits.js';
import { LineRenderer } from './line-renderer.js';

export interface OutputBufferOptions {
  /** The bound on rendered lines: each line costs its length + 1 (its newline) + `lineOverheadChars`. */
  readonly maxChars?: number;
  /** What a line costs beyond its characters and newline (its memory overhead); see LINE_OVERHEAD_CHARS. */
  readonly lineOverheadChars?: number;
  /** Raw (unrendered) characters kept for `raw` reads. */
  readonly maxRawChars?: number;
  /** Passed to the renderer: how long an unterminated escape sequence may run before it is abandoned. */
  readonly maxSequenceChars?: number;
}

export interface BufferLine {
  /** Absolute: line 1 is the first line the PTY ever printed, whatever has been dropped since. */
  readonly lineNumber: number;
  readonly text: string;
}

export interface BufferStats {
  readonly firstLine: number;
  readonly totalLines: number;
  readonly retainedLines: number;
  readonly droppedLines: number;
  /** Counted as the bound counts them: each retained line's length + 1 + the per-line overhead. */
  readonly retainedChars: number;
  readonly rawChars: number;
  /** Everything ever appended, raw. */
  readonly totalRawChars: number;
}

function integerAtLeast(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/** A power of two, so the ring can wrap with a mask. */
const INITIAL_RING_CAPACITY = 16;

/** Lines in a circular array: O(1) push and drop at either end, O(1) access by position. */
class LineRing {
  private items: (string | undefined)[] = new Array<string | undefined>(INITIAL_RING_CAPACITY);
  private head = 0;
  size = 0;

  push(line: string): void {
    if (this.size === this.items.length) this.resize(this.items.length * 2);
    this.items[(this.head + this.size) & (this.items.length - 1)] = line;
    this.size++;
  }

  shift(): string {
    const line = this.at(0);
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.size--;
    // Shrinking at a quarter (not a half) keeps a size hovering at a boundary from resizing on every call.
    if (this.items.length > INITIAL_RING_CAPACITY && this.size < this.items.length / 4) this.resize(this.items.length / 2);
    return line;
  }

  at(index: number): string {
    return this.items[(this.head + index) & (this.items.length - 1)] ?? '';
  }

  private resize(capacity: number): void {
    const items = new Array<string | undefined>(capacity);
    for (let i = 0; i < this.size; i++) items[i] = this.at(i);
    this.items = items;
    this.head = 0;
  }
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** A dropped head is compacted away once it is this long and the larger part of the array. */
const TAIL_COMPACT_AT = 1_024;

/**
 * The newest raw text, kept as the chunks it arrived in: an append copies nothing, and whole chunks are dropped
 * from the head while the rest still holds more than `max` characters, so it keeps at most `max` + one chunk.
 * (Concatenating and cutting the string instead copied the whole tail at every cut.) Reads join and return the
 * newest `max`, in O(max): only `raw` reads need it. Keeping one unit past `max` lets a read see whether its cut
 * went through a surrogate pair, whatever the chunks were.
 */
class TextTail {
  private chunks: string[] = [];
  /** Index of the oldest kept chunk; the slots before it are dropped. */
  private head = 0;
  /** Characters in the kept chunks. */
  private kept = 0;
  total = 0;

  constructor(private readonly max: number) {}

  append(chunk: string): void {
    this.total += chunk.length;
    this.kept += chunk.length;
    this.chunks.push(chunk);
    while (this.head < this.chunks.length - 1) {
      const first = this.chunks[this.head] ?? '';
      if (this.kept - first.length <= this.max) break;
      this.kept -= first.length;
      // Release the chunk now, not at the next compaction.
      this.chunks[this.head++] = '';
    }
    if (this.head >= TAIL_COMPACT_AT && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  get length(): number {
    return Math.min(this.kept, this.max);
  }

  /** The kept text from absolute offset `offset` on (from the oldest kept character when that is later). */
  since(offset: number): { text: string; from: number } {
    // Walk back only over the chunks that hold the newer part, so a reader that keeps up joins little.
    let index = this.chunks.length;
    let start = this.total;
    while (index > this.head && start > offset) start -= (this.chunks[--index] ?? '').length;
    // Back at the oldest chunk, read() cuts to the bound (the chunks after it never hold more than the bound).
    const text = index === this.head ? this.read() : this.chunks.slice(index).join('');
    const textStart = this.total - text.length;
    const from = Math.min(Math.max(offset, textStart), this.total);
    return { text: text.slice(from - textStart), from };
  }

  read(): string {
    const text = this.chunks.slice(this.head).join('');
    if (text.length <= this.max) return text;
    const cut = text.length - this.max;
    // Never start on the second half of a surrogate pair the cut went through.
    return isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut)) ? text.slice(cut + 1) : text.slice(cut);
  }
}

/**
 * A PTY's rolling output as the model reads it: rendered lines (see LineRenderer) with absolute line numbers,
 * bounded to `maxChars`, oldest lines dropped first, plus a bounded raw tail. The unterminated last line is
 * readable at any time and counts as a line once it is non-empty. Reads cost O(lines read), except the two that
 * hand out the whole buffer (`searchText`, `rawText`).
 */
export class OutputBuffer {
  private readonly maxChars: number;
  /** A line's cost beyond its characters: its newline plus the overhead. */
  private readonly lineExtra: number;
  private readonly renderer: LineRenderer;
  private readonly lines = new LineRing();
  private readonly raw: TextTail;
  /** Cost of the completed retained lines, newlines and overhead included. */
  private completedChars = 0;
  private dropped = 0;

  constructor(options: OutputBufferOptions = {}) {
    this.lineExtra = 1 + integerAtLeast('lineOverheadChars', options.lineOverheadChars ?? LINE_OVERHEAD_CHARS, 0);
    // Room for one line of one character at least.
    this.maxChars = integerAtLeast('maxChars', options.maxChars ?? MAX_BUFFER_CHARS, 1 + this.lineExtra);
    this.raw = new TextTail(integerAtLeast('maxRawChars', options.maxRawChars ?? MAX_RAW_CHARS, 1));
    // A longest line plus its newline and overhead always fits, so one line can never evict itself.
    this.renderer = new LineRenderer({
      maxLineChars: this.maxChars - this.lineExtra,
      maxSequenceChars: options.maxSequenceChars ?? MAX_ESCAPE_SEQUENCE_CHARS,
    });
  }

  append(chunk: string): void {
    if (chunk === '') return;
    this.raw.append(chunk);
    for (const line of this.renderer.push(chunk)) {
      this.lines.push(line);
      this.completedChars += line.length + this.lineExtra;
      // Evict as lines arrive so a huge chunk never holds more than the bound in the ring.
      while (this.completedChars > this.maxChars) this.dropOldest();
    }
    while (this.lines.size > 0 && this.completedChars + this.partialChars() > this.maxChars) this.dropOldest();
  }

  /** Absolute number of the oldest retained line (one past the last line when nothing is retained). */
  get firstLine(): number {
    return this.dropped + 1;
  }

  get droppedLines(): number {
    return this.dropped;
  }

  get retainedLines(): number {
    return this.lines.size + (this.hasPartial() ? 1 : 0);
  }

  /** Every line ever printed, the non-empty unterminated last line included. */
  get totalLines(): number {
    return this.dropped + this.retainedLines;
  }

  /** Up to `limit` lines starting at `offset` (0-based over the retained lines); past the end gives none. */
  page(offset: number, limit: number): BufferLine[] {
    integerAtLeast('offset', offset, 0);
    integerAtLeast('limit', limit, 0);
    const end = Math.min(this.retainedLines, offset + limit);
    const page: BufferLine[] = [];
    for (let index = offset; index < end; index++) page.push({ lineNumber: this.firstLine + index, text: this.lineAt(index) });
    return page;
  }

  /** The newest `limit` lines. */
  tail(limit: number): BufferLine[] {
    integerAtLeast('limit', limit, 0);
    return this.page(Math.max(this.retainedLines - limit, 0), limit);
  }

  /**
   * Every retained line, each ended by `\n` (so an empty last line is still a line to grep):
   * grep's 1-based line n is absolute line `firstLine + n - 1`.
   */
  searchText(): { text: string; firstLine: number } {
    // Appending to a string (a rope, flattened once when written out) takes about half the time of
    // collecting the parts and joining them (V8's join), for 10,000 lines ~1.5 ms instead of ~3.
    let text = '';
    for (let index = 0, retained = this.retainedLines; index < retained; index++) {
      text += this.lineAt(index);
      text += '\n';
    }
    return { text, firstLine: this.firstLine };
  }

  /** The newest retained line with anything but whitespace on it. */
  lastNonBlankLine(): string | undefined {
    for (let index = this.retainedLines - 1; index >= 0; index--) {
      const line = this.lineAt(index);
      if (/\S/.test(line)) return line;
    }
    return undefined;
  }

  /** The newest raw output, escape sequences and carriage returns untouched. */
  rawText(): string {
    return this.raw.read();
  }

  /** Characters of raw output ever appended: the absolute raw offset of the end. */
  get totalRawChars(): number {
    return this.raw.total;
  }

  /**
   * The kept raw text from absolute raw offset `offset` to the end. When `offset` is older than what is kept,
   * the text starts at the oldest kept character and `from > offset` says that output was lost in between.
   */
  rawSince(offset: number): { text: string; from: number } {
    integerAtLeast('offset', offset, 0);
    return this.raw.since(offset);
  }

  stats(): BufferStats {
    return {
      firstLine: this.firstLine,
      totalLines: this.totalLines,
      retainedLines: this.retainedLines,
      droppedLines: this.dropped,
      retainedChars: this.completedChars + this.partialChars(),
      rawChars: this.raw.length,
      totalRawChars: this.raw.total,
    };
  }

  private lineAt(index: number): string {
    return index < this.lines.size ? this.lines.at(index) : this.renderer.partial();
  }

  private hasPartial(): boolean {
    return this.renderer.partialLength > 0;
  }

  private partialChars(): number {
    const length = this.renderer.partialLength;
    return length > 0 ? length + this.lineExtra : 0;
  }

  private dropOldest(): void {
    this.completedChars -= this.lines.shift().length + this.lineExtra;
    this.dropped++;
  }
}
