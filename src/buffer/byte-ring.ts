import { asciiText } from '../text/ascii-text.js';
import { PLAIN_PIECE_MAX_BYTES, PLAIN_RING_FIRST_BYTES } from '../limits.js';
import { GrowableMemory } from '../text/growable-memory.js';
import { OffsetRing } from './offset-ring.js';

/** Bytes of plain output held in a ByteRing: `length` bytes from the ring's absolute offset `at`. */
export interface RingSpan {
  readonly at: number;
  readonly length: number;
}

const LF = 0x0a;

/**
 * A PTY's plain output (printable ASCII and `\n`) kept as bytes, in memory reused for as long as the PTY lives; its
 * text is made only when a read asks for it.
 *
 * Kept as strings instead, a flood's output is a megabyte of new memory per PTY that the flood turns over: in Bun
 * every such megabyte was 200–300 page faults, 13–21 µs each on a VM that hands freed memory back to its host, and the
 * largest part of the plugin's host CPU over the bare reader (docs/perf-journal.md, seventeenth session). Written into
 * the same pages again and again, it costs a copy.
 *
 * The memory is taken as the output reaches it, from PLAIN_RING_FIRST_BYTES at the first write, doubling up to
 * `capacity` (see GrowableMemory: taken whole at the start, it counted toward the collector's next full collection at
 * every spawn). Offsets are absolute and only grow; byte `at` lives at `at % capacity`. A span never
 * wraps: a write that would cross the end of the memory starts at its beginning, and the bytes skipped are a gap. A
 * write never overwrites a byte at or after `oldestLive`, the oldest offset a holder still refers to: it refuses
 * instead, and the caller keeps that output as a string. The buffer's bounds keep what is live well within the
 * capacity (OutputBuffer sizes it), so refusing is a belt that should never have to hold.
 */
export class ByteRing {
  private readonly growable: GrowableMemory;
  /** The memory as far as it was taken: every span lies in it. */
  private memory: Buffer;
  /** Absolute offset where the next write starts (gaps included). */
  private head = 0;

  constructor(private readonly capacity: number) {
    this.growable = new GrowableMemory(capacity, PLAIN_RING_FIRST_BYTES);
    this.memory = this.growable.bytes;
  }

  /** Bytes of memory taken so far (see GrowableMemory). */
  get takenBytes(): number {
    return this.memory.length;
  }

  /** Absolute offset where the next write starts: what a caller passes as `oldestLive` when nothing is live. */
  get end(): number {
    return this.head;
  }

  /**
   * Copies `bytes` in and returns where they are; undefined (nothing written) when that would overwrite a byte at or
   * after `oldestLive` (`end` when nothing is live).
   */
  write(bytes: Uint8Array, oldestLive: number): RingSpan | undefined {
    const length = bytes.length;
    const capacity = this.capacity;
    const offset = this.head % capacity;
    const at = offset + length <= capacity ? this.head : this.head - offset + capacity;
    if (at + length - Math.min(oldestLive, this.head) > capacity) return undefined;
    const start = at % capacity;
    if (start + length > this.memory.length) this.memory = this.growable.atLeast(start + length);
    this.memory.set(bytes, start);
    this.head = at + length;
    return { at, length };
  }

  /** The text of `span`'s bytes [from, to), one character per byte (they are ASCII). */
  text(span: RingSpan, from = 0, to = span.length): string {
    const start = this.physical(span);
    return this.memory.toString('latin1', start + from, start + to);
  }

  /** Offset in `span` of the first `\n` at or after `from`, or -1: a search of the span alone. */
  indexOfLineFeed(span: RingSpan, from = 0): number {
    const start = this.physical(span);
    const found = this.memory.subarray(start + from, start + span.length).indexOf(LF);
    return found === -1 ? -1 : from + found;
  }

  /**
   * Offset in `span` of the end (`\n`) of the line at `from`, for a span of whole lines. Not cut at the span's end:
   * a view to cut it would cost an object per line read, and the line feed is always there (without one the search
   * would run on through the memory, one memchr of its size).
   */
  lineEnd(span: RingSpan, from: number): number {
    const start = this.physical(span);
    return this.memory.indexOf(LF, start + from) - start;
  }

  /** Offset in `span` of the last `\n` at or before offset `at` of it (0 when negative, as for a string), or -1. */
  lastIndexOfLineFeed(span: RingSpan, at: number): number {
    const start = this.physical(span);
    return this.memory.subarray(start, start + Math.min(Math.max(at, 0) + 1, span.length)).lastIndexOf(LF);
  }

  /** `span`'s bytes [from, to), in place: valid only until the next write. */
  view(span: RingSpan, from = 0, to = span.length): Uint8Array {
    const start = this.physical(span);
    return this.memory.subarray(start + from, start + to);
  }

  /** Whether `after`'s bytes start in memory right where `before`'s end, so that one view holds both. */
  adjoins(before: RingSpan, after: RingSpan): boolean {
    return this.physical(before) + before.length === this.physical(after);
  }

  /**
   * Whether `after` continues `before`, so that the two are one span: next by offset and in memory. Offsets alone do
   * not tell: a write that ends exactly at the memory's end is followed by one at its start whose offset continues
   * it, and a span joined across the end was read on past it (a wait's result failed 3 times in ~10,000 long
   * prints: docs/perf-journal.md, thirty-sixth session).
   */
  continues(before: RingSpan, after: RingSpan): boolean {
    return before.at + before.length === after.at && this.adjoins(before, after);
  }

  /**
   * `before` and `after` as one span, when `after` continues it (see continues) and the two stay within
   * PLAIN_PIECE_MAX_BYTES; else undefined. A holder that joins its newest span so keeps a flood, or a trickle of small
   * reads, as a span per that many bytes, not one per chunk.
   */
  joined(before: RingSpan, after: RingSpan): RingSpan | undefined {
    if (before.length + after.length > PLAIN_PIECE_MAX_BYTES || !this.continues(before, after)) return undefined;
    return { at: before.at, length: before.length + after.length };
  }

  /**
   * The bytes from offset `from` of `first` through the end of `last`, in place (valid only until the next write):
   * for spans that follow one another in memory (each `adjoins` the next).
   */
  viewThrough(first: RingSpan, from: number, last: RingSpan): Uint8Array {
    return this.memory.subarray(this.physical(first) + from, this.physical(last) + last.length);
  }

  /** The byte at offset `index` of `span`. */
  byteAt(span: RingSpan, index: number): number {
    return this.memory[this.physical(span) + index] as number;
  }

  private physical(span: RingSpan): number {
    return span.at % this.capacity;
  }
}

/**
 * Output as a holder keeps it: a string, or a span of plain bytes in its buffer's ring. Both have `length` (a span's
 * bytes are its characters); the functions below read either.
 */
export type KeptText = string | RingSpan;

/**
 * The spans one holder (the line store, the raw tail, the open line) keeps, in the order it took them: the oldest is
 * what the ring must not overwrite (ByteRing.write). A holder lets texts go in the order it took them.
 */
export class HeldSpans {
  private readonly starts = new OffsetRing();

  /** `text` is now held (a string is nothing to the ring). */
  hold(text: KeptText): void {
    if (typeof text !== 'string') this.starts.push(text.at);
  }

  /** `text`, the oldest held, is let go. */
  release(text: KeptText): void {
    if (typeof text !== 'string') this.starts.drop(1);
  }

  releaseAll(): void {
    this.starts.drop(this.starts.size);
  }

  get none(): boolean {
    return this.starts.size === 0;
  }

  /** The ring offset of the oldest span held, or `none` when none is. */
  oldestOr(none: number): number {
    return this.starts.size > 0 ? this.starts.at(0) : none;
  }
}

/**
 * Output handed to a scanner: text, or plain bytes as the buffer keeps them (ASCII, one character per byte), in place
 * and valid only until the buffer's next append.
 */
export type OutputPart = string | Uint8Array;

/** The text of an output part. */
export function partText(part: OutputPart): string {
  return typeof part === 'string' ? part : asciiText(part);
}

/** No bytes: the tail of an empty line. */
export const NO_BYTES = new Uint8Array(0);

const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * The last `need` characters of `parts` (kept texts, in order) as bytes, when they are all ASCII: in place when the
 * last spans hold them all and follow one another in the ring, else joined into `scratch` (at least `need` long), text
 * runs written in as bytes. Undefined when one is not ASCII or `parts` hold fewer. Valid only until the next write of
 * the ring or of `scratch`.
 */
export function keptTailAscii(
  ring: ByteRing,
  parts: readonly KeptText[],
  need: number,
  scratch: Buffer,
): Uint8Array | undefined {
  if (need === 0) return NO_BYTES;
  const last = parts[parts.length - 1];
  if (last !== undefined && typeof last !== 'string') {
    if (last.length >= need) return ring.view(last, last.length - need);
    // A flood's chunks are written one after another in the ring: the tail is one view of their spans unless it
    // crosses the ring's end. (Copied, a long line's tail was its largest cost per MiB: docs/perf-journal.md,
    // thirty-first session.)
    let first = last;
    let covered = last.length;
    for (let p = parts.length - 2; p >= 0; p--) {
      const part = parts[p] as KeptText;
      if (typeof part === 'string' || !ring.adjoins(part, first)) break;
      first = part;
      covered += part.length;
      if (covered >= need) return ring.viewThrough(first, covered - need, last);
    }
  }
  let at = need;
  for (let p = parts.length - 1; p >= 0 && at > 0; p--) {
    const part = parts[p] as KeptText;
    const take = Math.min(part.length, at);
    if (typeof part === 'string') {
      const text = take === part.length ? part : part.slice(part.length - take);
      if (NOT_ASCII.test(text)) return undefined;
      scratch.write(text, at - take, take, 'latin1');
    } else {
      scratch.set(ring.view(part, part.length - take), at - take);
    }
    at -= take;
  }
  return at === 0 ? scratch.subarray(0, need) : undefined;
}

/** `text.slice(from, to)` of a kept text (a span's needs `ring`, which a holder of spans always has). */
export function keptSlice(ring: ByteRing | undefined, text: KeptText, from = 0, to = text.length): string {
  if (typeof text === 'string') return from === 0 && to === text.length ? text : text.slice(from, to);
  return (ring as ByteRing).text(text, from, to);
}

/** Where the line at `from` of a kept text of whole lines ends: its `\n` (see ByteRing.lineEnd). */
export function keptLineEnd(ring: ByteRing | undefined, text: KeptText, from: number): number {
  return typeof text === 'string' ? text.indexOf('\n', from) : (ring as ByteRing).lineEnd(text, from);
}

/** `text.indexOf('\n', from)` of a kept text. */
export function keptIndexOfLineFeed(ring: ByteRing | undefined, text: KeptText, from = 0): number {
  return typeof text === 'string' ? text.indexOf('\n', from) : (ring as ByteRing).indexOfLineFeed(text, from);
}

/** `text.lastIndexOf('\n', at)` of a kept text. */
export function keptLastIndexOfLineFeed(ring: ByteRing | undefined, text: KeptText, at: number): number {
  return typeof text === 'string' ? text.lastIndexOf('\n', at) : (ring as ByteRing).lastIndexOfLineFeed(text, at);
}

/** `text.charCodeAt(index)` of a kept text (NaN past its end, as for a string). */
export function keptCharCodeAt(ring: ByteRing | undefined, text: KeptText, index: number): number {
  if (typeof text === 'string') return text.charCodeAt(index);
  return index >= 0 && index < text.length ? (ring as ByteRing).byteAt(text, index) : Number.NaN;
}
