import { isAscii } from 'node:buffer';

/**
 * Decodes a stream's UTF-8 chunks into text, exactly as one TextDecoder decodes their concatenation (invalid bytes
 * become U+FFFD the same way, wherever the chunks are cut).
 *
 * ASCII, the bulk of most output, is its own text: latin1 makes it a one-byte string at memcpy speed, as
 * StringDecoder did. Anything else goes through TextDecoder in stream mode, which decodes mixed-script text in
 * about half StringDecoder's time (1.6 against 3.1 ms per MiB; docs/perf-journal.md, eleventh session). An ASCII
 * chunk goes the short way only when TextDecoder holds no bytes of a sequence the last chunk cut in two.
 */
export class Utf8Chunks {
  private readonly decoder = new TextDecoder('utf-8');
  /** Whether the decoder may hold the start of a sequence (never false while it does). */
  private mayHold = false;
  /** The stream's last bytes (up to 4), for a chunk too short to show alone where the last sequence began. */
  private readonly tail = new Uint8Array(4);
  private tailLength = 0;

  write(chunk: Buffer): string {
    return this.writeUnlessAscii(chunk) ?? chunk.toString('latin1');
  }

  /**
   * As `write`, but undefined for a chunk that takes the short way (ASCII, nothing carried): its bytes are its text,
   * one character each, and the caller makes that text only if it needs it.
   */
  writeUnlessAscii(chunk: Buffer): string | undefined {
    if (!this.mayHold && isAscii(chunk)) {
      // ASCII bytes are neither leads nor continuations: before a later chunk they say what no bytes would.
      this.tailLength = 0;
      return undefined;
    }
    const text = this.decoder.decode(chunk, { stream: true });
    this.keepTail(chunk);
    const last = this.tail.subarray(0, this.tailLength);
    this.mayHold = wholeSequencesEnd(last) < last.length;
    return text;
  }

  /** What the decoder holds, decoded (an unfinished sequence at the very end becomes U+FFFD). */
  end(): string {
    this.mayHold = false;
    this.tailLength = 0;
    return this.decoder.decode();
  }

  private keepTail(chunk: Uint8Array): void {
    const keep = Math.min(chunk.length, 4);
    const carried = Math.min(this.tailLength, 4 - keep);
    this.tail.copyWithin(0, this.tailLength - carried, this.tailLength);
    this.tail.set(chunk.subarray(chunk.length - keep), carried);
    this.tailLength = carried + keep;
  }
}

/**
 * The offset where the last sequence of `bytes` begins if `bytes` ends before that sequence is whole, else the
 * length. A lead byte says how long its sequence is; at most three continuation bytes follow it. A sequence that
 * is already invalid also counts as unfinished here, which only ever sends the next chunk the long way.
 */
export function wholeSequencesEnd(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let back = 1; back <= Math.min(4, length); back++) {
    const byte = bytes[length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const needs =
      byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xc2 && byte <= 0xdf ? 2 : 1;
    return back < needs ? length - back : length;
  }
  return length;
}
