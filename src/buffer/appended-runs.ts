import { emptiedForReuse, objectArray } from '../shapes/object-array.js';
import { MAY_HOLD_WIDE } from '../text/char-width.js';
import { isHighSurrogate as isHigh } from '../text/surrogates.js';
import {
  type ByteRing,
  HeldSpans,
  type KeptText,
  keptCharCodeAt,
  keptSlice,
  keptTailAscii,
  type RingSpan,
} from './byte-ring.js';

/** Runs shorter than this are appended to the last run when it is short too. */
const SMALL_PART_CHARS = 1_024;

/**
 * A line's text while it has only been appended to (LineCells): the runs it was appended in, each a string or a span
 * of plain bytes in the buffer's ring, the first `skip` characters of the first run cut off with the line's head.
 * Runs, not one string grown by `+=`: cutting the head of a grown string flattened the whole of it into a fresh copy,
 * twice the bound, at every cut. Offsets here count UTF-16 units from the first character kept.
 */
export class AppendedRuns {
  private parts: KeptText[] = objectArray();
  /** The parts that are spans. */
  private readonly spans = new HeldSpans();
  private skip = 0;
  private pairs = false;
  private wide = false;

  constructor(private readonly ring?: ByteRing) {}

  /**
   * Whether the runs may hold a surrogate pair. Without one no column can hold half a pair, and units are columns
   * unless `mayHoldWide`.
   */
  get mayHoldPairs(): boolean {
    return this.pairs;
  }

  /** Whether the runs may hold a character two columns wide (MAY_HOLD_WIDE). */
  get mayHoldWide(): boolean {
    return this.wide;
  }

  /** Some run is bytes in the ring: the text is made per read, not kept a second time as a string. */
  get holdsSpans(): boolean {
    return !this.spans.none;
  }

  /** The ring offset of the oldest span held, or `none` when there is none: see ByteRing.write. */
  oldestSpanOr(none: number): number {
    return this.spans.oldestOr(none);
  }

  /** The one run, when it is a span and nothing of it is cut off. */
  get onlySpan(): RingSpan | undefined {
    if (this.parts.length !== 1 || this.skip !== 0) return undefined;
    const only = this.parts[0] as KeptText;
    return typeof only === 'string' ? undefined : only;
  }

  /** Printable text: plain runs hold no surrogates (the renderer stops them at any), and a pair comes on its own. */
  append(run: string): void {
    if (isHigh(run.charCodeAt(0))) this.pairs = true;
    else if (!this.wide && MAY_HOLD_WIDE.test(run)) this.wide = true;
    // Small runs join the last one (short strings, cheap to concatenate) so a line typed a character at a time is not
    // a part per character.
    const last = this.parts.length - 1;
    // Never index -1 when empty: JavaScriptCore's optimized code leaves on a negative index (and is rebuilt).
    const lastPart = last >= 0 ? this.parts[last] : undefined;
    if (typeof lastPart === 'string' && run.length < SMALL_PART_CHARS && lastPart.length < SMALL_PART_CHARS) {
      this.parts[last] = lastPart + run;
    } else {
      this.parts.push(run);
    }
  }

  /** Plain ASCII text kept as bytes in the ring. */
  appendSpan(span: RingSpan): void {
    this.parts.push(span);
    this.spans.hold(span);
  }

  /** `count` blanks, where the cursor was moved past the end before a write. */
  pad(count: number): void {
    if (count > 0) this.parts.push(' '.repeat(count));
  }

  /** The text, one string. */
  text(): string {
    const only = this.parts.length === 1 ? this.parts[0] : undefined;
    const text = typeof only === 'string' ? only : this.parts.map((part) => keptSlice(this.ring, part)).join('');
    return this.skip > 0 ? text.slice(this.skip) : text;
  }

  /**
   * The text, which then takes the runs' place: the next look, or a cut, starts from one string instead of many. Not
   * when some are bytes: the line would hold its text as a string again.
   */
  joined(): string {
    const text = this.text();
    if (this.spans.none) {
      this.parts = emptiedForReuse(this.parts);
      this.parts.push(text);
      this.skip = 0;
    }
    return text;
  }

  /** `text().slice(from, to)`, from the runs it is in: the head of a long line without the whole line's text. */
  slice(from: number, to: number): string {
    const start = this.skip + from;
    const end = this.skip + to;
    let text = '';
    let offset = 0;
    for (const part of this.parts) {
      if (offset >= end) break;
      const partEnd = offset + part.length;
      if (partEnd > start) {
        text += keptSlice(this.ring, part, Math.max(start - offset, 0), Math.min(end - offset, part.length));
      }
      offset = partEnd;
    }
    return text;
  }

  /** The last `count` units, from the runs they are in. */
  tail(count: number): string {
    let tail = '';
    for (let p = this.parts.length - 1, need = count; p >= 0 && need > 0; p--) {
      const part = this.parts[p] as KeptText;
      tail = keptSlice(this.ring, part, Math.max(part.length - need, 0)) + tail;
      need -= part.length;
    }
    return tail;
  }

  /** The last `count` units as bytes when they are all ASCII (see keptTailAscii); undefined without a ring. */
  tailAscii(count: number, scratch: Buffer): Uint8Array | undefined {
    return this.ring === undefined ? undefined : keptTailAscii(this.ring, this.parts, count, scratch);
  }

  /** The UTF-16 unit at `offset`; NaN past the end. */
  unitAt(offset: number): number {
    let at = offset + this.skip;
    for (const part of this.parts) {
      if (at < part.length) return keptCharCodeAt(this.ring, part, at);
      at -= part.length;
    }
    return NaN;
  }

  /** Cuts `count` units off the head: whole runs go (their spans let go), the first kept one may start within. */
  dropHead(count: number): void {
    let drop = this.skip + count;
    while (this.parts.length > 0 && (this.parts[0] as KeptText).length <= drop) {
      const gone = this.parts.shift() as KeptText;
      this.spans.release(gone);
      drop -= gone.length;
    }
    this.skip = drop;
  }

  /** Empty again, every span let go. */
  clear(): void {
    this.parts = emptiedForReuse(this.parts);
    this.spans.releaseAll();
    this.skip = 0;
    this.pairs = false;
    this.wide = false;
  }
}
