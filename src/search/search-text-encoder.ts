import { MAX_KEPT_SEARCH_BYTES } from '../limits.js';
import { memoryOutsideForks } from '../text/memory-outside-forks.js';

/** A search's text as UTF-8, and how to hand its memory back once grep is gone. */
export interface EncodedText {
  readonly bytes: Buffer;
  /** Call once no write of `bytes` can still be pending (grep's pipes closed); a second call does nothing. */
  release(): void;
}

/**
 * Encodes a search's text, part by part, into one buffer kept from one search to the next.
 *
 * Handed a string, Node's pipe would make two fresh copies of the whole buffer per search: the parts flattened into
 * one string, then its UTF-8 in a new allocation of three times its length. Memory the host writes for the first
 * time is what costs: every fresh page is a fault, and on the bench machine (a VM that hands freed memory back to its
 * host) a fault takes 17–19 µs, so a fresh megabyte about 4.6 ms, more than grep's scan of it (docs/perf-journal.md,
 * sixteenth session). The kept buffer lives outside forks (memoryOutsideForks), so grep's own spawn does not make
 * its pages fault again at the next search.
 *
 * One buffer is kept, as searches mostly come one at a time: a search that finds it lent out, or whose text needs
 * more than MAX_KEPT_SEARCH_BYTES, gets a buffer of its own. Parts must not split a surrogate pair (the output
 * buffer's parts are whole lines): each is encoded alone.
 */
export class SearchTextEncoder {
  private kept: Buffer | undefined;
  private lent = false;

  constructor(private readonly maxKeptBytes = MAX_KEPT_SEARCH_BYTES) {}

  /** The size of the buffer kept for the next search (0 before the first): for tests and diagnostics. */
  get keptBytes(): number {
    return this.kept?.length ?? 0;
  }

  encode(text: string | readonly string[]): EncodedText {
    const parts = typeof text === 'string' ? [text] : text;
    let length = 0;
    for (const part of parts) length += Buffer.byteLength(part, 'utf8');
    const buffer = this.take(length);
    let at = 0;
    for (const part of parts) at += buffer.write(part, at, 'utf8');
    const bytes = buffer.subarray(0, at);
    if (buffer !== this.kept) return { bytes, release: () => {} };
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.lent = false;
      },
    };
  }

  /** A buffer of at least `length` bytes: the kept one when it is free and large enough. */
  private take(length: number): Buffer {
    if (this.lent || length > this.maxKeptBytes) return Buffer.allocUnsafeSlow(length);
    // An eighth over what this text needs: a full output buffer's text changes size a little from search to search.
    if (!this.kept || this.kept.length < length) {
      this.kept = memoryOutsideForks(Math.min(this.maxKeptBytes, length + (length >> 3)));
    }
    this.lent = true;
    return this.kept;
  }
}
