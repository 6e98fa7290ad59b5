import type { LineSink } from './line-renderer.js';
import { OffsetRing } from './offset-ring.js';

const LF = 0x0a;
/** A run whose first line is shorter than this is split unit by unit; longer lines are found with indexOf (a memchr). */
const SHORT_LINE_CHARS = 16;
/** A dropped head is compacted away once it is this long and the larger part of the array. */
const COMPACT_AT = 256;

/** Whole lines, each ended by `\n`, starting at absolute offset `start` of the stored text. */
interface Piece {
  readonly text: string;
  readonly start: number;
}

export interface LineStoreOptions {
  /** The bound: each retained line costs its length + 1 (its newline) + `overhead`. */
  readonly maxChars: number;
  readonly overhead: number;
  /** Lines that arrive one by one are joined into one piece once they hold this many characters. */
  readonly pieceChars: number;
}

/**
 * The completed lines of a PTY, kept as few large strings ("pieces") with a compact index: the absolute end
 * offset of each line in a typed array. A run of plain lines is stored as the very string it arrived in (the
 * raw tail holds the same one), and costs one pass over it and 8 bytes a line; a line string exists only while
 * a read asks for it. Lines rendered one at a time (escapes, `\r`) gather in an open piece that is joined once
 * it holds `pieceChars`. Lines never span pieces, so a line is one slice of one piece.
 *
 * Offsets count the stored text: every line its characters and its `\n`, from 0 for the first line ever. The
 * oldest lines are dropped first to keep the cost of the retained ones within the bound; a piece goes once
 * all its lines have, so the store holds at most one piece and one open piece beyond the bound.
 */
export class LineStore implements LineSink {
  /** The end (one past the `\n`) of each retained line, oldest first. */
  private readonly ends = new OffsetRing();
  private pieces: (Piece | undefined)[] = [];
  private pieceHead = 0;
  /** Where the last lookup found its line: reads go line by line, so the next one is mostly in the same piece. */
  private lastPiece = 0;
  /** Lines rendered one at a time and not yet joined into a piece, from absolute index `openFirst`. */
  private readonly open: string[] = [];
  private openFirst = 0;
  private openStart = 0;
  private openChars = 0;
  /** Start of the oldest retained line. */
  private firstStart = 0;
  /** End of the newest line. */
  private end = 0;
  /** Cost of the retained lines, as the bound counts it. */
  chars = 0;
  dropped = 0;

  constructor(private readonly options: LineStoreOptions) {}

  get size(): number {
    return this.ends.size;
  }

  line(text: string): void {
    if (this.open.length === 0) {
      this.openFirst = this.dropped + this.ends.size;
      this.openStart = this.end;
    }
    this.open.push(text);
    this.openChars += text.length + 1;
    this.index(this.end + text.length + 1);
    if (this.openChars >= this.options.pieceChars) this.seal();
  }

  lines(input: string, from: number, to: number): void {
    this.seal();
    const text = from === 0 && to === input.length ? input : input.slice(from, to);
    const start = this.end;
    this.pieces.push({ text, start });
    const length = text.length;
    if (text.indexOf('\n') < SHORT_LINE_CHARS) {
      for (let at = 0; at < length; at++) if (text.charCodeAt(at) === LF) this.index(start + at + 1);
    } else {
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.index(start + at + 1);
    }
    this.releasePieces();
  }

  /** Drops the oldest lines until the retained ones and `reserve` (the unfinished line's cost) fit the bound. */
  fit(reserve: number): void {
    while (this.ends.size > 0 && this.chars + reserve > this.options.maxChars) this.dropOldest();
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
    if (this.open.length > 0 && n >= this.openFirst) return this.open[n - this.openFirst] as string;
    const i = n - this.dropped;
    const start = i === 0 ? this.firstStart : this.ends.at(i - 1);
    const piece = this.pieceAt(start);
    return piece.text.slice(start - piece.start, this.ends.at(i) - 1 - piece.start);
  }

  /** Every retained line, each ended by `\n`: slices of the pieces, not a string per line. */
  joined(): string {
    let text = '';
    if (this.ends.size === 0) return text;
    for (let p = this.pieceIndex(this.firstStart); p >= 0 && p < this.pieces.length; p++) {
      const piece = this.pieces[p] as Piece;
      text += piece.start < this.firstStart ? piece.text.slice(this.firstStart - piece.start) : piece.text;
    }
    for (let n = Math.max(this.openFirst, this.dropped); n - this.openFirst < this.open.length; n++) {
      text += this.open[n - this.openFirst] as string;
      text += '\n';
    }
    return text;
  }

  private index(end: number): void {
    this.ends.push(end);
    this.chars += end - this.end + this.options.overhead;
    this.end = end;
    // Every line fits the bound alone, so this stops before the newest line.
    while (this.chars > this.options.maxChars && this.ends.size > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const end = this.ends.shift();
    this.chars -= end - this.firstStart + this.options.overhead;
    this.firstStart = end;
    this.dropped++;
  }

  private seal(): void {
    if (this.open.length === 0) return;
    // The empty last element gives the last line its `\n` without a concatenation (which would make a rope).
    this.open.push('');
    const text = this.open.join('\n');
    this.open.length = 0;
    this.openChars = 0;
    if (this.openStart + text.length > this.firstStart) this.pieces.push({ text, start: this.openStart });
  }

  private releasePieces(): void {
    while (this.pieceHead < this.pieces.length) {
      const piece = this.pieces[this.pieceHead] as Piece;
      if (piece.start + piece.text.length > this.firstStart) break;
      this.pieces[this.pieceHead++] = undefined;
    }
    if (this.pieceHead >= COMPACT_AT && this.pieceHead * 2 >= this.pieces.length) {
      this.pieces = this.pieces.slice(this.pieceHead);
      this.lastPiece = Math.max(this.lastPiece - this.pieceHead, 0);
      this.pieceHead = 0;
    }
  }

  private pieceAt(offset: number): Piece {
    return this.pieces[this.pieceIndex(offset)] as Piece;
  }

  /** Index of the piece holding `offset` (-1 if none): the last one found or its successor, else a binary search. */
  private pieceIndex(offset: number): number {
    for (let p = Math.max(this.lastPiece, this.pieceHead); p <= this.lastPiece + 1 && p < this.pieces.length; p++) {
      const piece = this.pieces[p] as Piece;
      if (piece.start <= offset && offset < piece.start + piece.text.length) return (this.lastPiece = p);
    }
    let low = this.pieceHead;
    let high = this.pieces.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const piece = this.pieces[mid] as Piece;
      if (offset < piece.start) high = mid - 1;
      else if (offset >= piece.start + piece.text.length) low = mid + 1;
      else return (this.lastPiece = mid);
    }
    return -1;
  }
}
