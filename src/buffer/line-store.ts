import { type ByteRing, HeldSpans, type KeptText, keptLineEnd, keptSlice, type RingSpan } from './byte-ring.js';
import type { PartSink } from './completed-parts.js';
import type { LineSink } from './line-renderer.js';
import { type LineScanner, SCAN_GROUP_LINES } from './line-scan.js';
import { OffsetRing } from './offset-ring.js';
import { objectArray } from '../shapes/object-array.js';

/** Lines per index entry of a plain run: a lookup scans at most this many lines, with indexOf (a memchr). */
const GROUP_LINES = SCAN_GROUP_LINES;
/**
 * GROUP_LINES whole lines at once, matched in the regex engine's native code: a run of short lines is counted
 * without a JS call or a string per line (a loop over the characters in JS costs several times more).
 */
const LINE_GROUP = new RegExp(`(?:[^\\n]*\\n){${GROUP_LINES}}`, 'y');
/**
 * A run whose first line is shorter than this is grouped by LINE_GROUP; longer lines are found with indexOf, which
 * overtakes the regex at about 28 characters a line (0.76 against 1.02 ms per MiB at 32, 0.34 against 1.10 at 80).
 */
const SHORT_LINE_CHARS = 28;
/** A dropped head is compacted away once it is this long and the larger part of the array. */
const COMPACT_AT = 256;
/** lineText's limit for no limit. */
const WHOLE_LINE = -1;

/** Whole lines, each ended by `\n`, starting at absolute offset `start` of the stored text. */
interface Piece {
  /** A run of plain lines may be bytes in the buffer's ring (see ByteRing); such a piece grows at its end. */
  text: KeptText;
  readonly start: number;
  /** Absolute 0-based index of its first line: a piece starts where a line does. */
  readonly firstLine: number;
}

export interface LineStoreOptions {
  /** The bound: each retained line costs its length + 1 (its newline) + `overhead`. */
  readonly maxChars: number;
  readonly overhead: number;
  /** Lines that arrive one by one are joined into one piece once they hold this many characters. */
  readonly pieceChars: number;
  /** Where the runs given by `keptLines` are (see ByteRing). */
  readonly ring?: ByteRing;
}

/**
 * The completed lines of a PTY, kept as few large pieces with a compact index. A run of plain lines is stored as
 * the bytes it arrived in, a span of the buffer's ring (`keptLines`; the raw tail holds the same span), or, given
 * as text (`lines`), as the very string it arrived in; it is counted in groups of
 * GROUP_LINES lines by one native regex match each, and the index keeps only where each group ends (its offset
 * and its absolute line count, in two typed arrays). A line string exists only while a read asks for it: the
 * read finds the line's group and scans to it with indexOf. Lines rendered one at a time (escapes, `\r`) are an
 * index group each and gather in an open piece that is joined once it holds `pieceChars`. Neither lines nor
 * groups span pieces.
 *
 * Offsets count the stored text: every line its characters and its `\n`, from 0 for the first line ever. The
 * oldest lines are dropped first, exactly line by line as the bound counts them (whole groups at once when the
 * group is all to go); a piece goes once all its lines have, so the store holds at most one piece and one open
 * piece beyond the bound.
 */
export class LineStore implements LineSink {
  /** The end offset (one past the last `\n`) of each group of retained lines, oldest first. */
  private readonly groupEnds = new OffsetRing();
  /** The absolute line count at the end of each group: group g holds lines groupLines[g-1] .. groupLines[g] - 1. */
  private readonly groupLines = new OffsetRing();
  private pieces: (Piece | undefined)[] = objectArray();
  private readonly spans = new HeldSpans();
  private pieceHead = 0;
  /** Where the last lookup found its line: reads go line by line, so the next one is mostly in the same piece. */
  private lastPiece = 0;
  /** Lines rendered one at a time and not yet joined into a piece, from absolute index `openFirst`. */
  private readonly open: string[] = objectArray();
  private openFirst = 0;
  private openStart = 0;
  private openChars = 0;
  /** Where the line after the last one read starts (valid while it is retained): reads go forward. */
  private cursorLine = -1;
  private cursorStart = 0;
  /** Where the last partsFrom ended: the next line's absolute index and start offset. */
  private joinedTo = -1;
  private joinedToStart = 0;
  /** Start of the oldest retained line. */
  private firstStart = 0;
  /** End of the newest line. */
  private end = 0;
  /** Lines ever completed. */
  private total = 0;
  /** Cost of the retained lines, as the bound counts it. */
  chars = 0;
  dropped = 0;
  /**
   * The newest line that lost its head for being longer than the bound (its index; -1 for none) and how many
   * characters it lost. One is enough: such a line keeps the whole bound, so any older one is gone by then.
   */
  private headCutIndex = -1;
  private headCutChars = 0;

  constructor(private readonly options: LineStoreOptions) {}

  get size(): number {
    return this.total - this.dropped;
  }

  /** The characters line `index` (absolute, from 0) lost from its head (see LineSink.line); 0 when it lost none. */
  headDroppedAt(index: number): number {
    return index === this.headCutIndex && index >= this.dropped ? this.headCutChars : 0;
  }

  /** The ring offset of the oldest span kept here, or `none` when it holds none: see ByteRing.write. */
  oldestSpanOr(none: number): number {
    return this.spans.oldestOr(none);
  }

  line(text: string, headDropped = 0): void {
    if (headDropped > 0) {
      this.headCutIndex = this.total;
      this.headCutChars = headDropped;
    }
    if (this.open.length === 0) {
      this.openFirst = this.total;
      this.openStart = this.end;
    }
    this.open.push(text);
    this.openChars += text.length + 1;
    this.addGroup(this.end + text.length + 1, 1);
    this.dropOver(0, 1);
    if (this.openChars >= this.options.pieceChars) this.seal();
  }

  lines(input: string, from: number, to: number, scanned?: LineScanner): void {
    const text = from === 0 && to === input.length ? input : input.slice(from, to);
    const start = this.addPiece(text);
    if (scanned !== undefined) this.indexScanned(scanned, from, to, start);
    else this.indexRun(text, start);
    this.afterRun();
  }

  /**
   * A run of whole plain lines kept as bytes in the ring (`span`), as `lines` takes one: `scanned` holds the chunk
   * they came from, and the span ends with its bytes [from, to). It may begin before them, with the start of its
   * first line that the last chunk left open (its bytes just before these in the ring).
   */
  keptLines(span: RingSpan, scanned: LineScanner, from: number, to: number): void {
    const start = this.addPiece(span);
    this.indexScanned(scanned, from, to, start + span.length - (to - from));
    this.afterRun();
  }

  private addPiece(text: KeptText): number {
    this.seal();
    const start = this.end;
    if (!this.extendedLastPiece(text, start)) {
      this.pieces.push({ text, start, firstLine: this.total });
      this.spans.hold(text);
    }
    return start;
  }

  /**
   * Whether `text`, a run that starts at `start` (the end of the store), was joined to the last piece: when both are
   * spans that ByteRing.joined makes one. A flood then costs a piece per PLAIN_PIECE_MAX_BYTES, not one per chunk.
   */
  private extendedLastPiece(text: KeptText, start: number): boolean {
    if (typeof text === 'string' || this.pieces.length <= this.pieceHead) return false;
    const last = this.pieces[this.pieces.length - 1] as Piece;
    const kept = last.text;
    if (typeof kept === 'string' || last.start + kept.length !== start) return false;
    const joined = this.options.ring?.joined(kept, text);
    if (joined === undefined) return false;
    last.text = joined;
    return true;
  }

  private afterRun(): void {
    // Dropping once per run, not per group, finds the cut line by line in one group only (the others go whole).
    this.dropOver(0, 1);
    this.releasePieces();
  }

  /** Counts a run's lines in JS: groups of short lines by one native regex match each, long lines by indexOf. */
  private indexRun(text: string, start: number): void {
    let at = 0;
    if (text.indexOf('\n') < SHORT_LINE_CHARS) {
      LINE_GROUP.lastIndex = 0;
      while (LINE_GROUP.test(text)) {
        at = LINE_GROUP.lastIndex;
        this.addGroup(start + at, GROUP_LINES);
      }
    }
    let count = 0;
    for (let lf = text.indexOf('\n', at); lf !== -1; lf = text.indexOf('\n', lf + 1)) {
      if (++count === GROUP_LINES) {
        this.addGroup(start + lf + 1, count);
        count = 0;
      }
    }
    // The run ends with a `\n`, so the rest is whole lines.
    if (count > 0) this.addGroup(start + text.length, count);
  }

  /** Counts a run's lines in the WebAssembly scan of its chunk, which gives where every 64th ends. */
  private indexScanned(scanned: LineScanner, from: number, to: number, start: number): void {
    const { count, ends } = scanned.groups(from, to);
    const groups = Math.floor(count / SCAN_GROUP_LINES);
    for (let g = 0; g < groups; g++) this.addGroup(start + (ends[g] as number) - from, SCAN_GROUP_LINES);
    const rest = count - groups * SCAN_GROUP_LINES;
    if (rest > 0) this.addGroup(start + to - from, rest);
  }

  /** Drops the oldest lines until the retained ones and `reserve` (the unfinished line's cost) fit the bound. */
  fit(reserve: number): void {
    this.dropOver(reserve, 0);
    this.releasePieces();
  }

  /** Characters the store holds, retained or not yet released (for tests of its bound): O(pieces). */
  get heldChars(): number {
    let held = this.openChars;
    for (let p = this.pieceHead; p < this.pieces.length; p++) held += (this.pieces[p] as Piece).text.length;
    return held;
  }

  /** The retained line with absolute 0-based index `n` (from `dropped` to `dropped + size - 1`). */
  text(n: number): string {
    return this.lineText(n, WHOLE_LINE);
  }

  /** The first `limit` characters of `text(n)`, without making the rest of a long line a string. */
  textHead(n: number, limit: number): string {
    return this.lineText(n, limit);
  }

  /** `limit` WHOLE_LINE (an integer, not Infinity: see OffsetRing on what a double costs in JavaScriptCore). */
  private lineText(n: number, limit: number): string {
    if (this.open.length > 0 && n >= this.openFirst) {
      const line = this.open[n - this.openFirst] as string;
      return limit === WHOLE_LINE ? line : line.slice(0, limit);
    }
    const start = this.startOf(n);
    const piece = this.pieceAt(start);
    const from = start - piece.start;
    const to = keptLineEnd(this.options.ring, piece.text, from);
    this.cursorLine = n + 1;
    this.cursorStart = piece.start + to + 1;
    return keptSlice(this.options.ring, piece.text, from, limit === WHOLE_LINE ? to : Math.min(to, from + limit));
  }

  /**
   * The retained lines from absolute 0-based index `n` (the oldest retained one when `n` is older) to the newest,
   * each ended by `\n`, as the store holds them: slices of the pieces, then the lines not yet joined into one as a
   * single string, oldest first; finding where line `n` starts costs a binary search and at most a group's worth of
   * indexOf. Every part is whole lines, each ended by `\n`, and none is empty. What a
   * scanner of new output reads part by part: joined, the text of a flood's chunk is the line it finished and its
   * run, which V8 copies into one new string at the first search in it (a third of the host's young garbage in a
   * flood with a wait pending, docs/perf-journal.md).
   *
   * `firstLines`, when given, gets each part's first line (absolute, 0-based), so that a scanner can number a match
   * without counting the lines of the parts before it (for 2-byte lines that count was a third of the core's cost).
   */
  partsFrom(n: number, firstLines?: number[]): string[] {
    const parts: string[] = [];
    this.outputPartsFrom(n, false, {
      add(part, firstLine) {
        parts.push(part as string);
        firstLines?.push(firstLine);
      },
    });
    return parts;
  }

  /**
   * As partsFrom, but a run kept as bytes comes as those bytes, in place (see OutputPart): a scanner looks for a
   * pattern's required literal in them before it makes their text. Each goes to `sink`, its first line numbered
   * from `lineBase`.
   */
  bytePartsFrom(n: number, sink: PartSink, lineBase = 0): void {
    this.outputPartsFrom(n, true, sink, lineBase);
  }

  private outputPartsFrom(n: number, asBytes: boolean, sink: PartSink, lineBase = 0): void {
    const first = Math.max(n, this.dropped);
    if (first >= this.total) return;
    const sealed = this.open.length > 0 ? this.openFirst : this.total;
    if (first < sealed) {
      const from = this.startOf(first);
      const until = this.open.length > 0 ? this.openStart : this.end;
      for (let p = this.pieceIndex(from); p >= 0 && p < this.pieces.length; p++) {
        const piece = this.pieces[p] as Piece;
        if (piece.start >= until) break;
        const end = Math.min(piece.text.length, until - piece.start);
        const start = Math.max(from - piece.start, 0);
        sink.add(
          asBytes && typeof piece.text !== 'string'
            ? (this.options.ring as ByteRing).view(piece.text, start, end)
            : keptSlice(this.options.ring, piece.text, start, end),
          (piece.start < from ? first : piece.firstLine) + lineBase,
        );
      }
    }
    const openFrom = Math.max(this.openFirst, first) - this.openFirst;
    if (openFrom < this.open.length) {
      const lines = this.open.slice(openFrom);
      // The empty last element ends the last line with its `\n` in the join (no concatenation, no rope).
      lines.push('');
      sink.add(lines.join('\n'), this.openFirst + openFrom + lineBase);
    }
    this.joinedTo = this.total;
    this.joinedToStart = this.end;
  }

  /** Where retained line `n` (not in the open piece) starts. */
  private startOf(n: number): number {
    if (n === this.cursorLine && n > this.dropped) return this.cursorStart;
    // A scanner of new output asks from where its last partsFrom ended: that start is known without a lookup.
    if (n === this.joinedTo && n > this.dropped) return this.joinedToStart;
    if (n === this.dropped) return this.firstStart;
    const group = this.groupOf(n);
    let start = group === 0 ? this.firstStart : this.groupEnds.at(group - 1);
    const piece = this.pieceAt(start);
    for (let line = group === 0 ? this.dropped : this.groupLines.at(group - 1); line < n; line++) {
      start = piece.start + keptLineEnd(this.options.ring, piece.text, start - piece.start) + 1;
    }
    return start;
  }

  private addGroup(end: number, count: number): void {
    this.total += count;
    this.groupEnds.push(end);
    this.groupLines.push(this.total);
    this.chars += end - this.end + count * this.options.overhead;
    this.end = end;
    // A huge run is indexed past the bound at most twice over before its oldest lines go. (Every line fits the
    // bound alone, so keeping the newest one never breaks it.)
    if (this.chars > 2 * this.options.maxChars) this.dropOver(0, 1);
  }

  /**
   * Drops the oldest lines while the retained ones and `reserve` exceed the bound, keeping the newest `keep`:
   * a whole group at once when all of it has to go, else line by line within it.
   */
  private dropOver(reserve: number, keep: number): void {
    const max = this.options.maxChars - reserve;
    if (this.chars > max) {
      this.dropWholeGroups(max, keep);
      this.dropLinesOfFirstGroup(max, keep);
    }
    while (this.chars > max && this.size > keep) {
      const lines = this.groupLines.at(0) - this.dropped;
      if (lines === 1 || this.canDropWhole(1, max, keep)) {
        this.dropGroups(1);
        continue;
      }
      // Groups of more than one line are runs, which are in pieces from the start.
      const piece = this.pieceAt(this.firstStart);
      const lineEnd = piece.start + keptLineEnd(this.options.ring, piece.text, this.firstStart - piece.start) + 1;
      this.chars -= lineEnd - this.firstStart + this.options.overhead;
      this.firstStart = lineEnd;
      this.dropped++;
    }
  }

  /**
   * Drops the oldest lines of the first group one by one while over `max`, short of its last line (the loop in
   * dropOver takes that one with the group): the cut through a run of short lines, up to 63 lines per chunk of a
   * flood, in one loop over the run's own text with nothing but indexOf. (Through dropOver's loop, which looks up
   * the piece and the group's cost per line, this was the largest single function of a flood of short lines.)
   * Lines the renderer gave one at a time are a group each, and never get here.
   */
  private dropLinesOfFirstGroup(max: number, keep: number): void {
    const groupEnd = this.groupLines.size > 0 ? this.groupLines.at(0) : 0;
    if (this.chars <= max || groupEnd - this.dropped < 2) return;
    const piece = this.pieceAt(this.firstStart);
    const text = piece.text;
    const ring = this.options.ring;
    const overhead = this.options.overhead;
    const keepFrom = Math.min(groupEnd - 1, this.total - keep);
    let chars = this.chars;
    let dropped = this.dropped;
    let at = this.firstStart - piece.start;
    while (chars > max && dropped < keepFrom) {
      const next = keptLineEnd(ring, text, at) + 1;
      chars -= next - at + overhead;
      at = next;
      dropped++;
    }
    this.chars = chars;
    this.dropped = dropped;
    this.firstStart = piece.start + at;
  }

  /**
   * Drops at once the longest run of oldest groups that can all go whole (what is left still over the bound, and
   * `keep` lines kept): found by binary search over the index, since both stay monotone in the run's length. A
   * flood of 2-byte lines drops about 55 groups per chunk; one at a time, that loop was the buffer's largest cost.
   */
  private dropWholeGroups(max: number, keep: number): void {
    // Galloping first: a chunk mostly frees one group or two, so the bracket is found in a probe or two instead of
    // a binary search over the whole index (thousands of groups in a flood of short lines).
    let low = 0;
    let high = this.groupEnds.size;
    for (let probe = 1; probe < high; probe *= 2) {
      if (!this.canDropWhole(probe, max, keep)) {
        high = probe - 1;
        break;
      }
      low = probe;
    }
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.canDropWhole(mid, max, keep)) low = mid;
      else high = mid - 1;
    }
    if (low > 0) this.dropGroups(low);
  }

  /** Lines in the oldest `groups` groups, and what dropping them gives back to the bound. */
  private groupsCost(groups: number): { lines: number; cost: number } {
    const lines = this.groupLines.at(groups - 1) - this.dropped;
    return { lines, cost: this.groupEnds.at(groups - 1) - this.firstStart + lines * this.options.overhead };
  }

  /** Whether the oldest `groups` groups can all go: what is left is still over `max`, with `keep` lines kept. */
  private canDropWhole(groups: number, max: number, keep: number): boolean {
    const { lines, cost } = this.groupsCost(groups);
    return this.chars - cost >= max && this.size - lines >= keep;
  }

  private dropGroups(groups: number): void {
    this.chars -= this.groupsCost(groups).cost;
    this.firstStart = this.groupEnds.at(groups - 1);
    this.dropped = this.groupLines.at(groups - 1);
    this.groupEnds.drop(groups);
    this.groupLines.drop(groups);
  }

  private seal(): void {
    if (this.open.length === 0) return;
    // The empty last element gives the last line its `\n` without a concatenation (which would make a rope).
    this.open.push('');
    const text = this.open.join('\n');
    this.open.length = 0;
    this.openChars = 0;
    if (this.openStart + text.length > this.firstStart) {
      this.pieces.push({ text, start: this.openStart, firstLine: this.openFirst });
    }
  }

  private releasePieces(): void {
    while (this.pieceHead < this.pieces.length) {
      const piece = this.pieces[this.pieceHead] as Piece;
      if (piece.start + piece.text.length > this.firstStart) break;
      this.spans.release(piece.text);
      this.pieces[this.pieceHead++] = undefined;
    }
    if (this.pieceHead >= COMPACT_AT && this.pieceHead * 2 >= this.pieces.length) {
      this.pieces = this.pieces.slice(this.pieceHead);
      this.lastPiece = Math.max(this.lastPiece - this.pieceHead, 0);
      this.pieceHead = 0;
    }
  }

  /** The group holding absolute line `n`: the first whose line count passes it (binary search). */
  private groupOf(n: number): number {
    let low = 0;
    let high = this.groupLines.size - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.groupLines.at(mid) > n) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  private pieceAt(offset: number): Piece {
    return this.pieces[this.pieceIndex(offset)] as Piece;
  }

  /** Index of the piece holding `offset` (-1 if none): the last one found or its successor, else a binary search. */
  private pieceIndex(offset: number): number {
    for (let p = Math.max(this.lastPiece, this.pieceHead); p <= this.lastPiece + 1 && p < this.pieces.length; p++) {
      const piece = this.pieces[p] as Piece;
      if (piece.start <= offset && offset < piece.start + piece.text.length) {
        this.lastPiece = p;
        return p;
      }
    }
    let low = this.pieceHead;
    let high = this.pieces.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const piece = this.pieces[mid] as Piece;
      if (offset < piece.start) high = mid - 1;
      else if (offset >= piece.start + piece.text.length) low = mid + 1;
      else {
        this.lastPiece = mid;
        return mid;
      }
    }
    return -1;
  }
}
