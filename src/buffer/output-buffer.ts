import { isAscii } from 'node:buffer';
import {
  BUFFER_PIECE_CHARS,
  LINE_OVERHEAD_CHARS,
  LINE_SCAN_MAX_CHUNK_BYTES,
  MAX_BUFFER_CHARS,
  MAX_ESCAPE_SEQUENCE_CHARS,
  MAX_RAW_CHARS,
  PLAIN_RING_SLACK_BYTES,
} from '../limits.js';
import { asciiText } from '../text/ascii-text.js';
import { ByteRing, NO_BYTES } from './byte-ring.js';
import { CompletedParts } from './completed-parts.js';
import { type AppendedLine, CUT_STEPS_PER_BOUND } from './line-cells.js';
import { LineRenderer } from './line-renderer.js';
import type { ParserStart, TerminalQuery } from './escape-parser.js';
import { type LineScanner, lineScanner } from './line-scan.js';
import { LineStore } from './line-store.js';
import { type RawChunk, RawTail } from './raw-tail.js';
import type { RowsAndCols } from './rows-above.js';
import { replayModes } from './replay-modes.js';

export interface OutputBufferOptions {
  /** The bound on rendered lines: each line costs its length + 1 (its newline) + `lineOverheadChars`. */
  readonly maxChars?: number;
  /** What a line costs beyond its characters and newline (its memory overhead); see LINE_OVERHEAD_CHARS. */
  readonly lineOverheadChars?: number;
  /** Raw (unrendered) characters kept for `raw` reads. */
  readonly maxRawChars?: number;
  /** The native chunk scan; `null` for none (the JS path alone, for tests that compare the two). */
  readonly scanner?: LineScanner | null;
  /** Passed to the renderer: how long an unterminated escape sequence may run before it is abandoned. */
  readonly maxSequenceChars?: number;
  /** Lines rendered one at a time are joined into one string once they hold this many characters. */
  readonly pieceChars?: number;
  /**
   * The memory that keeps plain output as bytes (see ByteRing); by default the larger of the two bounds plus
   * PLAIN_RING_SLACK_BYTES. A smaller one only makes more output go the string way (tests use that).
   */
  readonly plainRingBytes?: number;
  /** The terminal's size, for the rows a program moves the cursor back over (see RowsAbove); the default size if not given. */
  readonly size?: RowsAndCols;
}

export interface BufferLine {
  /** Absolute: line 1 is the first line the PTY ever printed, whatever has been dropped since. */
  readonly lineNumber: number;
  readonly text: string;
  /** A line longer than the bound keeps its newest characters only: how many went from its head (see headDropped). */
  readonly headDropped?: number;
}

const bufferLine = (lineNumber: number, text: string, headDropped: number): BufferLine =>
  headDropped > 0 ? { lineNumber, text, headDropped } : { lineNumber, text };

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

const LF = 0x0a;
const NOT_BLANK = /\S/;
/**
 * A plain chunk with no line feed is kept as bytes from this length on. A shorter one (a line typed a character at a
 * time) is rendered, a string joined to the line's last part: a span per keystroke would be a part each.
 */
const MIN_KEPT_OPEN_LINE_BYTES = 1_024;

function integerAtLeast(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/**
 * A PTY's rolling output as the model reads it: rendered lines (see LineRenderer) with absolute line numbers,
 * bounded to `maxChars`, oldest lines dropped first, plus a bounded raw tail. The unterminated last line is
 * readable at any time and counts as a line once it is non-empty.
 *
 * Ingest costs about one pass over each chunk: plain output (no control character but `\n`) is copied as bytes into
 * one memory the buffer reuses (ByteRing, see keepPlain), shared by the line store (with an index of line ends), the
 * raw tail and the open line, and text is made only when a read asks for it. Reads cost O(lines read), except the
 * two that hand out the whole buffer (`searchText`, `rawText`).
 */
export class OutputBuffer {
  private readonly maxChars: number;
  /** A line's cost beyond its characters: its newline plus the overhead. */
  private readonly lineExtra: number;
  private readonly renderer: LineRenderer;
  private readonly store: LineStore;
  private readonly raw: RawTail;
  private readonly scanner: LineScanner | undefined;
  /** Plain output's bytes, where the native scan can tell plain output (see keepPlain). */
  private readonly ring: ByteRing | undefined;
  /** The raw end of the newest chunk not known to be plain (see plainFrom). */
  private unplainEnd = 0;
  /** The raw end of the newest chunk not known to be only text, line feeds and SGR (see onlyTextFrom). */
  private notOnlyTextEnd = 0;

  constructor(options: OutputBufferOptions = {}) {
    const overhead = integerAtLeast('lineOverheadChars', options.lineOverheadChars ?? LINE_OVERHEAD_CHARS, 0);
    this.lineExtra = 1 + overhead;
    // Room for one line of one character at least.
    this.maxChars = integerAtLeast('maxChars', options.maxChars ?? MAX_BUFFER_CHARS, 1 + this.lineExtra);
    this.scanner = options.scanner === null ? undefined : (options.scanner ?? lineScanner);
    const maxRawChars = integerAtLeast('maxRawChars', options.maxRawChars ?? MAX_RAW_CHARS, 1);
    // The open line keeps up to a cut step more than the bound (line-cells.ts), the raw tail its own bound.
    const openLineChars = this.maxChars + Math.ceil(this.maxChars / CUT_STEPS_PER_BOUND);
    const ringBytes = integerAtLeast(
      'plainRingBytes',
      options.plainRingBytes ?? Math.max(openLineChars, maxRawChars) + PLAIN_RING_SLACK_BYTES,
      1,
    );
    this.ring = this.scanner === undefined ? undefined : new ByteRing(ringBytes);
    this.raw = new RawTail(maxRawChars, this.ring);
    this.store = new LineStore({
      maxChars: this.maxChars,
      overhead,
      pieceChars: integerAtLeast('pieceChars', options.pieceChars ?? BUFFER_PIECE_CHARS, 1),
      ...(this.ring ? { ring: this.ring } : {}),
    });
    // A longest line plus its newline and overhead always fits, so one line can never evict itself.
    this.renderer = new LineRenderer({
      maxLineChars: this.maxChars - this.lineExtra,
      maxSequenceChars: options.maxSequenceChars ?? MAX_ESCAPE_SEQUENCE_CHARS,
      ...(this.ring ? { ring: this.ring } : {}),
      ...(options.size ? { size: options.size } : {}),
    });
  }

  /**
   * `bytes`: what `chunk` was decoded from, when the caller has it. A chunk whose bytes are its characters (ASCII)
   * is then scanned natively (see line-scan.ts) instead of by two regex passes; the result is the same.
   */
  append(chunk: string, bytes?: Uint8Array): void {
    if (chunk === '') return;
    // Bun hands a pipe's output on several reads at once when the host falls behind (chunks up to 200 KiB, 6–15% of
    // a flood's bytes), more than the native scan takes; whole, such a chunk took the JS path, whose regex
    // JavaScriptCore runs at 3.7 ms per MiB of plain text. ASCII bytes of the same length are the text itself (a
    // decoder's carry would have added a replacement character), so both can be cut at the same offsets, and parts
    // give the same lines as the whole: the renderer carries its state from chunk to chunk.
    if (
      this.scanner !== undefined &&
      bytes !== undefined &&
      bytes.length > LINE_SCAN_MAX_CHUNK_BYTES &&
      bytes.length === chunk.length &&
      isAscii(bytes)
    ) {
      for (let at = 0; at < chunk.length; at += LINE_SCAN_MAX_CHUNK_BYTES) {
        const end = at + LINE_SCAN_MAX_CHUNK_BYTES;
        this.appendPart(chunk.slice(at, end), bytes.subarray(at, end));
      }
      return;
    }
    this.appendPart(chunk, bytes);
  }

  /**
   * ASCII bytes, which are their own text, one character each (what Utf8Chunks lets through undecoded): a plain
   * chunk is kept as bytes without its text ever being made (keepPlain); anything else is rendered from its text, as
   * `append` does. Cut for the native scan as `append` cuts them.
   */
  appendAscii(bytes: Uint8Array): void {
    // Not cut when it fits: in Bun a view of a chunk reads its `buffer`, which turns a small typed array's storage into
    // an ArrayBuffer of its own (4% of a flood's main thread in a profile).
    if (bytes.length === 0) return;
    if (bytes.length <= LINE_SCAN_MAX_CHUNK_BYTES) {
      this.appendPart(undefined, bytes);
      return;
    }
    for (let at = 0; at < bytes.length; at += LINE_SCAN_MAX_CHUNK_BYTES) {
      this.appendPart(undefined, bytes.subarray(at, at + LINE_SCAN_MAX_CHUNK_BYTES));
    }
  }

  /** `chunk` undefined: `bytes` are ASCII and are the text. */
  private appendPart(chunk: string | undefined, bytes: Uint8Array | undefined): void {
    // Where the chunk starts, the renderer has taken every switch before it, unless one is cut there.
    const alternateAtStart = this.renderer.betweenSequences ? this.renderer.alternateScreen : undefined;
    const modesAtStart = alternateAtStart === undefined ? undefined : this.renderer.modes;
    // Plain, and begun outside any sequence (a plain chunk may end one the last chunk began, e.g. `49h`).
    const fresh = this.renderer.atGround;
    // Same length and all of it ASCII: the decoder carried nothing over, so byte i is character i.
    const scanned =
      this.scanner !== undefined &&
      bytes !== undefined &&
      (chunk === undefined || bytes.length === chunk.length) &&
      this.scanner.load(bytes)
        ? this.scanner
        : undefined;
    // On the alternate screen plain text is drawing, which the renderer leaves out of the lines.
    if (scanned !== undefined && fresh && alternateAtStart === false && this.keepPlain(bytes as Uint8Array, scanned))
      return;
    const text = chunk ?? asciiText(bytes as Uint8Array);
    // The store drops the oldest lines as new ones arrive, so a huge chunk never holds more than the bound.
    this.renderer.render(text, this.store, scanned);
    // A sequence cut at the chunk's start took effect where it ended in it: the screen from there on is known. One
    // that does not end in it leaves both undefined, and the raw tail finds them in the chunk where it does end.
    const carried = alternateAtStart === undefined ? this.renderer.carriedSequence() : undefined;
    this.raw.append(text, alternateAtStart ?? carried?.alternate, carried?.end ?? 0, modesAtStart ?? carried?.modes);
    if (scanned === undefined || !fresh) this.unplainEnd = this.raw.total;
    if (!this.renderer.takeOnlyText()) this.notOnlyTextEnd = this.raw.total;
    this.store.fit(this.partialChars());
  }

  /**
   * A plain chunk begun outside any sequence, kept as bytes in the ring: the raw tail keeps its span, the store the
   * span of its whole lines, and the open line what it leaves unfinished (what the renderer does with the rest of a
   * plain chunk is to take it as one run). The line it finishes is part of that run when the last chunk left it as
   * bytes just before these in the ring; else the renderer finishes it, as a string. False, and nothing done, when it
   * has no line end, its run is longer than a line may be, or the ring refuses it: the caller renders it.
   */
  private keepPlain(bytes: Uint8Array, scanned: LineScanner): boolean {
    if (this.ring === undefined) return false;
    const firstEnd = bytes.indexOf(LF) + 1;
    if (firstEnd === 0 && bytes.length < MIN_KEPT_OPEN_LINE_BYTES) return false;
    const lastEnd = firstEnd === 0 ? 0 : bytes.lastIndexOf(LF) + 1;
    const maxLineChars = this.maxChars - this.lineExtra;
    // The renderer's own test for taking whole lines as one run (each line is within the bound when the run is).
    if (firstEnd > 0 && lastEnd - 1 - firstEnd > maxLineChars) return false;
    // Integers throughout (no Infinity for "none"): see OffsetRing on what a double costs in JavaScriptCore.
    const end = this.ring.end;
    const live = Math.min(this.store.oldestSpanOr(end), this.raw.oldestSpanOr(end), this.renderer.oldestSpanOr(end));
    const span = this.ring.write(bytes, live);
    if (span === undefined) return false;
    const alternate = this.renderer.alternateScreen;
    const modes = this.renderer.modes;
    /** Where the text the chunk leaves on the open line starts. */
    let openFrom = lastEnd;
    const open = firstEnd > 0 ? this.renderer.plainLineSpan : undefined;
    if (open !== undefined && this.ring.continues(open, span) && open.length + lastEnd - 1 <= maxLineChars) {
      // The line the last chunk left open is bytes just before these in the ring: with the chunk's whole lines it is
      // one run, and no line is made a string (a flood's every chunk finishes a line it did not start).
      this.renderer.endPlainLine();
      this.store.keptLines({ at: open.at, length: open.length + lastEnd }, scanned, 0, lastEnd);
    } else if (firstEnd > 0) {
      // On a fresh line the first line is plain like the rest (when the run with it is within the bound, as the
      // renderer's test has it); else the renderer finishes the line the last chunk left open.
      const runFrom = this.renderer.takesPlainLines && lastEnd - 1 <= maxLineChars ? 0 : firstEnd;
      if (runFrom > 0) this.renderer.render(asciiText(bytes, 0, firstEnd), this.store);
      if (!this.renderer.freshLine) {
        // Never seen: a line feed leaves a fresh line. Should it not, the renderer takes the rest as it always would.
        this.renderer.render(asciiText(bytes, firstEnd), this.store);
        openFrom = bytes.length;
      } else if (lastEnd > runFrom) {
        this.store.keptLines({ at: span.at + runFrom, length: lastEnd - runFrom }, scanned, runFrom, lastEnd);
      }
    }
    // What the chunk leaves on the open line stays bytes: after a line feed it is all the line holds, which the next
    // chunk's run can then start with; a line-less chunk is one of a long line's runs (MIN_KEPT_OPEN_LINE_BYTES).
    if (lastEnd > 0) this.renderer.forgetRowsAbove();
    if (openFrom < bytes.length) this.renderer.putKept({ at: span.at + openFrom, length: bytes.length - openFrom });
    this.raw.append(span, alternate, 0, modes, firstEnd - 1);
    if (!this.renderer.takeOnlyText()) this.notOnlyTextEnd = this.raw.total;
    this.store.fit(this.partialChars());
    return true;
  }

  /** Absolute number of the oldest retained line (one past the last line when nothing is retained). */
  get firstLine(): number {
    return this.store.dropped + 1;
  }

  get droppedLines(): number {
    return this.store.dropped;
  }

  get retainedLines(): number {
    return this.store.size + (this.hasPartial() ? 1 : 0);
  }

  /** Every line ever printed, the non-empty unterminated last line included. */
  get totalLines(): number {
    return this.store.dropped + this.retainedLines;
  }

  /** Finished (newline-terminated) lines ever printed, dropped ones included: the unfinished line is number completedLines + 1. */
  get completedLines(): number {
    return this.store.dropped + this.store.size;
  }

  /** The unfinished last line as rendered ('' when there is none). */
  partialLine(): string {
    return this.hasPartial() ? this.renderer.partial() : '';
  }

  /** Whether the program sent its terminal a query (see TerminalQuery) since the last takeQueries. */
  get hasQueries(): boolean {
    return this.renderer.hasQueries;
  }

  /** The queries the program sent its terminal since the last call, oldest first. */
  takeQueries(): TerminalQuery[] {
    return this.renderer.takeQueries();
  }

  /** Length of `partialLine()` without making it. */
  get partialLength(): number {
    return this.renderer.partialLength;
  }

  /** Characters of raw output ever appended: the absolute raw offset of the end. */
  get totalRawChars(): number {
    return this.raw.total;
  }

  /** Up to `limit` lines starting at `offset` (0-based over the retained lines); past the end gives none. */
  page(offset: number, limit: number): BufferLine[] {
    return this.pageAs(offset, limit, bufferLine);
  }

  /**
   * `page`, each line shaped by `make` as it is read: a reader that gives lines its own shape (a tool result's) makes
   * one object per line, not two. A read of 500 lines is a few hundred KiB of garbage, and in Bun the eden
   * collections it brings are what a read's p99 is made of (docs/perf-journal.md).
   */
  pageAs<T>(offset: number, limit: number, make: (lineNumber: number, text: string, headDropped: number) => T): T[] {
    integerAtLeast('offset', offset, 0);
    integerAtLeast('limit', limit, 0);
    const count = Math.max(0, Math.min(this.retainedLines, offset + limit) - offset);
    const page = new Array<T>(count);
    for (let k = 0; k < count; k++) {
      const lineNumber = this.firstLine + offset + k;
      page[k] = make(lineNumber, this.lineAt(offset + k), this.headDropped(lineNumber));
    }
    return page;
  }

  /**
   * How many characters line `lineNumber` lost from its head: a line longer than the bound keeps only its newest
   * (the bound's worth), so what a read shows of it starts that far into the line as printed. 0 for any other line.
   */
  headDropped(lineNumber: number): number {
    if (lineNumber <= this.completedLines) return this.store.headDroppedAt(lineNumber - 1);
    return lineNumber === this.completedLines + 1 && this.hasPartial() ? this.renderer.partialHeadDropped : 0;
  }

  /**
   * Up to `limit` retained lines numbered `lineNumber` or later (from the oldest retained one when `lineNumber`
   * is older), the non-empty unfinished line last. Costs O(lines returned).
   */
  linesFrom(lineNumber: number, limit: number): BufferLine[] {
    return this.linesFromAs(lineNumber, limit, bufferLine);
  }

  /** `linesFrom`, each line shaped by `make` as it is read (see pageAs). */
  linesFromAs<T>(
    lineNumber: number,
    limit: number,
    make: (lineNumber: number, text: string, headDropped: number) => T,
  ): T[] {
    if (!Number.isSafeInteger(lineNumber)) throw new RangeError(`lineNumber must be an integer, got ${lineNumber}`);
    integerAtLeast('limit', limit, 0);
    return this.pageAs(Math.max(lineNumber, this.firstLine) - this.firstLine, limit, make);
  }

  /**
   * The finished lines numbered `lineNumber` or later (from the oldest retained one when `lineNumber` is older),
   * each ended by `\n`, in parts as the store keeps them (see LineStore.partsFrom): what a scanner of new output
   * reads, without a string per line or a copy of the whole. `firstLines[k]` is the number of part k's first line.
   * A run kept as bytes comes as those bytes, valid only until the next append (OutputPart): a scanner that cannot
   * rule it out from them makes its text (partText). `into` is cleared and filled: a scanner passes its own, used again
   * at every chunk (CompletedParts).
   */
  completedPartsFrom(lineNumber: number, into: CompletedParts = new CompletedParts()): CompletedParts {
    if (!Number.isSafeInteger(lineNumber)) throw new RangeError(`lineNumber must be an integer, got ${lineNumber}`);
    into.clear();
    // The store numbers lines from 0, the buffer from 1.
    this.store.bytePartsFrom(Math.max(lineNumber, this.firstLine) - 1, into, 1);
    return into;
  }

  /**
   * The last `limit` characters of the unfinished line ('' when there is none), without building the whole line:
   * a line can be a million characters long, and a scanner of live output looks only at its end.
   */
  partialTail(limit: number): string {
    integerAtLeast('limit', limit, 0);
    return this.hasPartial() ? this.renderer.partialTail(limit) : '';
  }

  /**
   * The unfinished line, as a scanner checks that it was only appended to since it last looked (same line, same
   * `rewrites`): then only its characters after the `end` it saw are new (OutputScanner).
   */
  get openLine(): AppendedLine {
    return this.renderer.openLine;
  }

  /**
   * `partialTail(limit)` as bytes (one per character) when it is all ASCII and the line has only been appended to,
   * valid only until the next append; undefined otherwise (see LineCells.partialTailAscii).
   */
  partialTailAscii(limit: number): Uint8Array | undefined {
    integerAtLeast('limit', limit, 0);
    return this.hasPartial() ? this.renderer.partialTailAscii(limit) : NO_BYTES;
  }

  /** The newest `limit` lines. */
  tail(limit: number): BufferLine[] {
    integerAtLeast('limit', limit, 0);
    return this.page(Math.max(this.retainedLines - limit, 0), limit);
  }

  /**
   * Every retained line, each ended by `\n` (so an empty last line is still a line to grep), as parts to join in order:
   * grep's 1-based line n is absolute line `firstLine + n - 1`.
   */
  searchText(): { parts: string[]; firstLine: number } {
    // Parts, not one string: joining them would copy the whole buffer into a new string only to encode it for grep.
    const parts = this.store.partsFrom(this.store.dropped);
    if (this.hasPartial()) parts.push(`${this.renderer.partial()}\n`);
    return { parts, firstLine: this.firstLine };
  }

  /**
   * The first `limit` characters of the newest retained line with anything but whitespace on it (undefined when there
   * is none). A line is made whole only when its head is blank: an exit notification quotes the start of a line that
   * may be a million characters long.
   */
  lastNonBlankLineHead(limit: number): string | undefined {
    integerAtLeast('limit', limit, 0);
    for (let index = this.retainedLines - 1; index >= 0; index--) {
      const head = this.lineHeadAt(index, limit);
      if (NOT_BLANK.test(head)) return head;
      if (head.length === limit && NOT_BLANK.test(this.lineAt(index))) return head;
    }
    return undefined;
  }

  /**
   * Whether everything from absolute raw offset `offset` on is known to be plain: printable ASCII and `\n` only,
   * in chunks that began outside any escape sequence (the native scan says so per chunk, at no extra cost). A screen
   * reads a plain flood from its end (see lazy-screen.ts). False whenever unsure.
   */
  plainFrom(offset: number): boolean {
    return this.unplainEnd <= offset;
  }

  /**
   * Whether everything from absolute raw offset `offset` on is only text (printable characters and tabs), line feeds
   * (a `\r` just before one included) and SGR sequences, as the renderer saw it: wider than plainFrom (colors, tabs,
   * non-ASCII), and it says nothing of columns. A screen can skip over such output (lazy-screen.ts). False whenever
   * unsure.
   */
  onlyTextFrom(offset: number): boolean {
    return this.notOnlyTextEnd <= offset;
  }

  /**
   * Whether the program is on the alternate screen (vim, less, top): the renderer sees every switch as it arrives,
   * so this stays right however much output is dropped later.
   */
  get alternateScreen(): boolean {
    return this.renderer.alternateScreen;
  }

  /**
   * The kept raw chunk holding absolute raw offset `offset`, whole (its start may be older than rawStart), with what
   * is known of its start (RawChunk); undefined past the end.
   */
  rawChunkAt(offset: number): RawChunk | undefined {
    return this.raw.chunkAt(offset);
  }

  /**
   * The terminal was resized after the output so far: the modes a resize resets (the scroll regions, tab stops) are
   * reset from here on, for a screen's restart to give back what the emulator, resized too, has.
   */
  noteResize(size?: RowsAndCols): void {
    this.renderer.resized(size);
  }

  /**
   * The screen shown and the modes a screen's restart gives back (terminal-modes.ts) at absolute raw offset `offset`,
   * as every sequence before it left them: from what the kept chunk holding it recorded at its start, and the chunk's
   * own text up to the offset. Undefined where that is not known: the chunk is gone, or a sequence cut at its start
   * has not ended.
   */
  modesAt(offset: number): ParserStart | undefined {
    const chunk = this.raw.chunkAt(offset);
    if (chunk === undefined) {
      const atEnd = offset === this.raw.total && this.renderer.betweenSequences;
      return atEnd ? { alternate: this.renderer.alternateScreen, modes: this.renderer.modes } : undefined;
    }
    if (chunk.alternateAtStart === undefined || chunk.modesAtStart === undefined) return undefined;
    const start = { alternate: chunk.alternateAtStart, modes: chunk.modesAtStart };
    const at = offset - chunk.start;
    if (at <= chunk.carriedEnd) return start;
    return replayModes(chunk.text.slice(chunk.carriedEnd, at), start).end;
  }

  /** Absolute raw offset of the oldest kept raw character. */
  get rawStart(): number {
    return this.raw.start;
  }

  /** Absolute raw offset of the newest `\n` before `before` in the kept raw output, or -1. */
  lastRawLineFeedBefore(before: number): number {
    return this.raw.lastLineFeedBefore(before);
  }

  /** Whether no `\n` was written from absolute raw offset `offset` on, dropped output included (false when unsure). */
  noLineFeedFrom(offset: number): boolean {
    return this.raw.noLineFeedFrom(offset);
  }

  /** The newest raw output, escape sequences and carriage returns untouched. */
  rawText(): string {
    return this.raw.since(0).text;
  }

  /**
   * What `rawText` leaves out: the raw characters written before it, and whether its first line is the end of a line
   * that began among them.
   */
  rawDropped(): { chars: number; midLine: boolean } {
    return { chars: this.raw.start, midLine: !this.raw.startsLine };
  }

  /**
   * The kept raw text from absolute raw offset `offset` (see `totalRawChars`) to the end; when `offset` is older
   * than what is kept, from the oldest kept character, and `from > offset` then says output was lost. An offset
   * past the end reads nothing, from the end (helper D's screen relies on that).
   */
  rawSince(offset: number): { text: string; from: number } {
    integerAtLeast('offset', offset, 0);
    return this.raw.since(Math.min(offset, this.raw.total));
  }

  stats(): BufferStats {
    return {
      firstLine: this.firstLine,
      totalLines: this.totalLines,
      retainedLines: this.retainedLines,
      droppedLines: this.store.dropped,
      retainedChars: this.store.chars + this.partialChars(),
      rawChars: this.raw.length,
      totalRawChars: this.raw.total,
    };
  }

  private lineAt(index: number): string {
    return index < this.store.size ? this.store.text(this.store.dropped + index) : this.renderer.partial();
  }

  private lineHeadAt(index: number, limit: number): string {
    return index < this.store.size
      ? this.store.textHead(this.store.dropped + index, limit)
      : this.renderer.partialHead(limit);
  }

  private hasPartial(): boolean {
    return this.renderer.partialLength > 0;
  }

  private partialChars(): number {
    const length = this.renderer.partialLength;
    return length > 0 ? length + this.lineExtra : 0;
  }
}
