import { objectArray } from '../shapes/object-array.js';
import type { OutputPart } from './byte-ring.js';

/** What LineStore hands finished lines to: each part of whole lines, with its first line's number. */
export interface PartSink {
  add(part: OutputPart, firstLine: number): void;
}

/**
 * Finished lines as OutputBuffer.completedPartsFrom hands them to a scanner: parts of whole lines, each with its first
 * line's number. One per scanner, filled again at every chunk, its arrays kept at their size (`length = 0` would give
 * their memory back, and the next push take new): a new pair of arrays per chunk was a third of the young garbage a
 * flood with a wait pending made beyond the bare reader's, and in a host with a small heap every scavenge it brings on
 * starts a full collection (docs/perf-journal.md, thirty-first session).
 */
export class CompletedParts implements PartSink {
  private readonly kept: OutputPart[] = objectArray();
  private readonly lines: number[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  add(part: OutputPart, firstLine: number): void {
    this.kept[this.count] = part;
    this.lines[this.count] = firstLine;
    this.count++;
  }

  /** Part `k` (< length). A run kept as bytes is a view of the ring, valid only until the next append (OutputPart). */
  part(k: number): OutputPart {
    return this.kept[k] as OutputPart;
  }

  /** The number of part `k`'s first line. */
  firstLine(k: number): number {
    return this.lines[k] as number;
  }

  /** Lets go of the parts (a string part can be as long as the buffer's bound); the arrays keep their size. */
  clear(): void {
    for (let k = 0; k < this.count; k++) this.kept[k] = '';
    this.count = 0;
  }

  /** Copies of the parts and their first lines (for tests and the curious: a scanner reads part(k)). */
  parts(): OutputPart[] {
    return this.kept.slice(0, this.count);
  }

  firstLines(): number[] {
    return this.lines.slice(0, this.count);
  }
}
