import { isHighSurrogate as isHigh, isLowSurrogate as isLow } from '../text/surrogates.js';
import {
  type ByteRing,
  HeldSpans,
  type RingSpan,
  type KeptText,
  keptCharCodeAt,
  keptIndexOfLineFeed,
  keptLastIndexOfLineFeed,
  keptSlice,
} from './byte-ring.js';
import type { TerminalModes } from './terminal-modes.js';
import { objectArray } from '../shapes/object-array.js';

/** A dropped head is compacted away once it is this long and the larger part of the array. */
const COMPACT_AT = 1_024;
const LF = 0x0a;
/**
 * A chunk that a sequence begun before it runs through to its end: the screen past that sequence is known only from
 * the chunk where it ends (chunkAt looks there).
 */
const INSIDE_SEQUENCE = 2;
/** Each chunk's start is packed in one number: the end of a sequence cut there, times this, plus its screen code. */
const CARRIED_UNIT = 4;

/** A kept chunk of raw output, whole, from its absolute start; the alternate screen's state there, if known. */
export interface RawChunk {
  readonly text: string;
  readonly start: number;
  /**
   * Whether the alternate screen showed where the chunk starts, past a sequence an earlier chunk began (carriedEnd);
   * undefined while that sequence has not ended.
   */
  readonly alternateAtStart: boolean | undefined;
  /**
   * How far from the chunk's start a sequence that an earlier chunk began runs (0 when none was cut at its start).
   * A long one (an image, a clipboard copy) can run past this chunk into later ones; one that has not ended yet runs
   * to the end of the output.
   */
  readonly carriedEnd: number;
  /** The modes a screen's restart gives back (terminal-modes.ts), where alternateAtStart is told. */
  readonly modesAtStart: TerminalModes | undefined;
}

/**
 * The newest raw text, kept as the chunks it arrived in (a plain chunk as its span of the buffer's ring, anything else
 * as its string): an append copies nothing, and whole chunks are dropped
 * from the head while the rest still holds more than `max` characters, so it keeps at most `max` + one chunk.
 * (Concatenating and cutting the string instead copied the whole tail at every cut.) Reads join the chunks they
 * need: O(what they return). Keeping one unit past `max` lets a read see whether its cut went through a
 * surrogate pair, whatever the chunks were.
 *
 * A plain chunk whose bytes follow the newest one's in the ring joins it (up to PLAIN_PIECE_MAX_BYTES, see
 * joinedToLast): a REPL's long print came in hundreds of reads of a few hundred bytes, and kept one each, every one an
 * object and four array slots that outlived the young generation (docs/perf-journal.md, thirty-ninth session).
 *
 * Offsets are absolute: 0 is the first character the PTY ever wrote, `total` the end of the newest.
 */
export class RawTail {
  /** A plain chunk's bytes in the buffer's ring, anything else its string. */
  private chunks: KeptText[] = objectArray();
  private readonly spans = new HeldSpans();
  /**
   * The absolute offset of each kept chunk's first `\n`, or -1: found at append by indexOf (a memchr, ≈60 ns for
   * 4 KiB), it lets lastLineFeedBefore pass over chunks without a line feed by one comparison each. (A screen read
   * during a flood of one long line searched the whole kept megabyte on every read: 0.7 ms a read.) Not the last
   * `\n`: V8's lastIndexOf is no memchr (≈5.5 µs for 4 KiB without one, a hundred times indexOf), and at append
   * it would cost more than the reads save.
   */
  private lineFeeds: number[] = [];
  /**
   * Per kept chunk, where it starts: the end of a sequence an earlier chunk began, times CARRIED_UNIT, plus whether
   * the program was on the alternate screen there (past that sequence): 1, 0, or INSIDE_SEQUENCE when the sequence
   * does not end in the chunk.
   */
  private starts: number[] = [];
  /** Per kept chunk, the modes past the sequence cut at its start (undefined when it does not end in the chunk). */
  private modes: (TerminalModes | undefined)[] = objectArray();
  /** Index of the oldest kept chunk; the slots before it are dropped. */
  private head = 0;
  /** Characters in the kept chunks. */
  private kept = 0;
  /** Characters ever appended: the absolute offset of the end. */
  total = 0;
  /** The absolute end of the newest chunk with a `\n`, dropped chunks included (0 when none had one). */
  private lineFeedChunkEnd = 0;

  constructor(
    private readonly max: number,
    private readonly ring?: ByteRing,
  ) {}

  /** The ring offset of the oldest span kept here, or `none` when it holds none: see ByteRing.write. */
  oldestSpanOr(none: number): number {
    return this.spans.oldestOr(none);
  }

  /**
   * `alternateAtStart`: whether the program was on the alternate screen where `chunk` starts, past `carriedEnd`, the
   * end of a sequence that an earlier chunk began (0 when none was cut at its start); undefined when that sequence
   * does not end in `chunk`. `firstLineFeed`: the offset of its first `\n` (-1 for none), when the caller knows it
   * (a span is searched through a view, which in Bun costs more than the search).
   */
  append(
    chunk: KeptText,
    alternateAtStart?: boolean,
    carriedEnd = 0,
    modesAtStart?: TerminalModes,
    firstLineFeed?: number,
  ): void {
    const lineFeed = firstLineFeed ?? keptIndexOfLineFeed(this.ring, chunk);
    const screen = alternateAtStart === undefined ? INSIDE_SEQUENCE : alternateAtStart ? 1 : 0;
    const start = carriedEnd * CARRIED_UNIT + screen;
    const last = this.chunks.length - 1;
    const joined = this.joinedToLast(chunk, start, modesAtStart);
    if (joined !== undefined) {
      this.chunks[last] = joined;
      if (lineFeed !== -1 && this.lineFeeds[last] === -1) this.lineFeeds[last] = this.total + lineFeed;
    } else {
      this.spans.hold(chunk);
      this.lineFeeds.push(lineFeed === -1 ? -1 : this.total + lineFeed);
      this.starts.push(start);
      this.modes.push(alternateAtStart === undefined ? undefined : modesAtStart);
      this.chunks.push(chunk);
    }
    this.total += chunk.length;
    if (lineFeed !== -1) this.lineFeedChunkEnd = this.total;
    this.kept += chunk.length;
    while (this.head < this.chunks.length - 1) {
      const first = this.chunks[this.head] as KeptText;
      if (this.kept - first.length <= this.max) break;
      this.kept -= first.length;
      this.spans.release(first);
      // Release the chunk now, not at the next compaction.
      this.chunks[this.head] = '';
      this.modes[this.head++] = undefined;
    }
    if (this.head >= COMPACT_AT && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.lineFeeds = this.lineFeeds.slice(this.head);
      this.starts = this.starts.slice(this.head);
      this.modes = this.modes.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * The newest kept chunk with `chunk` joined to it (ByteRing.joined), when both are spans and `chunk` starts as that
   * one did: no sequence cut at its start, the same screen and the same modes. A span is plain bytes, which change
   * neither, so what is known of the joined chunk's start holds for every offset in it, as chunkAt tells it. Else
   * undefined, and `chunk` is kept on its own.
   */
  private joinedToLast(chunk: KeptText, start: number, modesAtStart: TerminalModes | undefined): RingSpan | undefined {
    // The drop loop always keeps the newest chunk: the last slot is kept whenever there is one.
    const last = this.chunks.length - 1;
    const kept = this.chunks[last];
    if (kept === undefined || typeof kept === 'string' || typeof chunk === 'string') return undefined;
    if (start >= CARRIED_UNIT || start === INSIDE_SEQUENCE || this.starts[last] !== start) return undefined;
    if (this.modes[last] !== modesAtStart) return undefined;
    return this.ring?.joined(kept, chunk);
  }

  /** Characters a read can return: the newest `max` at most. */
  get length(): number {
    return this.total - this.oldest();
  }

  /** Absolute offset of the oldest character a read can return. */
  get start(): number {
    return this.oldest();
  }

  /**
   * Whether the oldest character a read can return begins a line: it is the first ever written, or the one before it
   * (kept, one past the bound: see oldest) is a `\n`. Else a read's first line is the end of a longer one.
   */
  get startsLine(): boolean {
    const from = this.oldest();
    if (from === 0) return true;
    let at = from - 1 - (this.total - this.kept);
    for (let index = this.head; index < this.chunks.length; index++) {
      const chunk = this.chunks[index] as KeptText;
      if (at < chunk.length) return keptCharCodeAt(this.ring, chunk, at) === LF;
      at -= chunk.length;
    }
    return false;
  }

  /**
   * Absolute offset of the newest `\n` before absolute offset `before` in the kept text, or -1: chunk by chunk from
   * the newest, joining nothing. A chunk with no line feed before `before` (its first one is later, or it has none)
   * is passed over by a comparison; the newest chunk with one is searched backwards with lastIndexOf, which stops
   * at the line feed it finds: at most one chunk's length.
   */
  lastLineFeedBefore(before: number): number {
    const oldest = this.oldest();
    let end = this.total;
    for (let index = this.chunks.length - 1; index >= this.head && end > oldest; index--) {
      const chunk = this.chunks[index] as KeptText;
      const start = end - chunk.length;
      if (start < before) {
        const first = this.lineFeeds[index] as number;
        if (first !== -1 && first < before) {
          const at = start + keptLastIndexOfLineFeed(this.ring, chunk, before - start - 1);
          // The newest before `before`; in the oldest chunk it may lie in the part already dropped.
          return at >= oldest ? at : -1;
        }
      }
      end = start;
    }
    return -1;
  }

  /**
   * Whether no `\n` was appended from absolute offset `offset` on, dropped output included. Known per chunk: a chunk
   * with a line feed anywhere in it that ends after `offset` says no (the answer errs only that way).
   */
  noLineFeedFrom(offset: number): boolean {
    return this.lineFeedChunkEnd <= offset;
  }

  /**
   * The kept text from absolute offset `offset` to the end; when `offset` is older than what is kept, from the
   * oldest kept character, and then `from > offset` says output was lost in between.
   */
  since(offset: number): { text: string; from: number } {
    const from = Math.max(offset, this.oldest());
    let start = this.total;
    let index = this.chunks.length;
    while (index > this.head && start > from) start -= (this.chunks[--index] as KeptText).length;
    const parts: string[] = [];
    for (let at = index, skip = from - start; at < this.chunks.length; at++, skip = 0)
      parts.push(keptSlice(this.ring, this.chunks[at] as KeptText, skip));
    return { text: parts.length === 1 ? (parts[0] as string) : parts.join(''), from };
  }

  /**
   * The kept chunk that holds absolute offset `offset` (its part before the oldest readable character included), with
   * what is known of its start (RawChunk); undefined when `offset` is not in a kept chunk (at the end, or dropped).
   */
  chunkAt(offset: number): RawChunk | undefined {
    // From the oldest: a restart asks for the chunk where the kept output begins.
    let start = this.total - this.kept;
    for (let index = this.head; index < this.chunks.length; index++) {
      const kept = this.chunks[index] as KeptText;
      const end = start + kept.length;
      if (start <= offset && offset < end) {
        return { text: keptSlice(this.ring, kept), start, ...this.carriedFrom(index, start) };
      }
      start = end;
    }
    return undefined;
  }

  /**
   * The sequence cut at the start of the chunk at `index` (absolute `start`): where it ends, from that start, and the
   * screen past it. One that runs through the chunk ends in the first later chunk it does not run through: a sequence
   * is bounded (MAX_ESCAPE_SEQUENCE_CHARS), so this looks at that many chunks at most.
   */
  private carriedFrom(index: number, start: number): Omit<RawChunk, 'text' | 'start'> {
    let endsIn = start;
    for (let at = index; at < this.chunks.length; at++) {
      const packed = this.starts[at] as number;
      const screen = packed % CARRIED_UNIT;
      if (screen !== INSIDE_SEQUENCE) {
        return {
          alternateAtStart: screen === 1,
          carriedEnd: endsIn - start + (packed - screen) / CARRIED_UNIT,
          modesAtStart: this.modes[at],
        };
      }
      endsIn += (this.chunks[at] as KeptText).length;
    }
    return { alternateAtStart: undefined, carriedEnd: this.total - start, modesAtStart: undefined };
  }

  /**
   * Where reads start: the newest `max` characters, never on the second half of a surrogate pair the cut went
   * through. The drop loop leaves the cut inside the oldest kept chunk, so that is the only chunk to look at.
   */
  private oldest(): number {
    const keptStart = this.total - this.kept;
    if (this.kept <= this.max) return keptStart;
    const cut = this.total - this.max;
    const first = this.chunks[this.head] as KeptText;
    const at = cut - keptStart;
    // The cut may fall exactly at the end of the oldest chunk, when the next one holds the unit after it.
    const after =
      at < first.length
        ? keptCharCodeAt(this.ring, first, at)
        : keptCharCodeAt(this.ring, this.chunks[this.head + 1] ?? '', 0);
    return isHigh(keptCharCodeAt(this.ring, first, at - 1)) && isLow(after) ? cut + 1 : cut;
  }
}
