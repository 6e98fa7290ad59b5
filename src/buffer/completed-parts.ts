import { emptiedForReuse, objectArray } from '../shapes/object-array.js';
import type { OutputPart } from './byte-ring.js';

/** What LineStore hands finished lines to: each part of whole lines, with its first line's number. */
export interface PartSink {
  add(part: OutputPart, firstLine: number): void;
}

/**
 * Finished lines as OutputBuffer.completedPartsFrom hands them to a scanner: parts of whole lines, each with its first
 * line's number. One per scanner, filled again at every chunk and emptied in place (emptiedForReuse): a new pair of
 * arrays per chunk was a third of the young garbage a flood with a wait pending made beyond the bare reader's, and in
 * a host with a small heap every scavenge it brings on starts a full collection (docs/perf-journal.md, thirty-first
 * session).
 */
export class CompletedParts implements PartSink {
  private kept: OutputPart[] = objectArray();
  /** Made for objects too, as a replacement from emptiedForReuse is: one elements kind throughout. */
  private lines: number[] = objectArray();

  get length(): number {
    return this.kept.length;
  }

  add(part: OutputPart, firstLine: number): void {
    this.kept.push(part);
    this.lines.push(firstLine);
  }

  /** Part `k` (< length). A run kept as bytes is a view of the ring, valid only until the next append (OutputPart). */
  part(k: number): OutputPart {
    return this.kept[k] as OutputPart;
  }

  /** The number of part `k`'s first line. */
  firstLine(k: number): number {
    return this.lines[k] as number;
  }

  /** Lets go of the parts (a string part can be as long as the buffer's bound), keeping the arrays' memory. */
  clear(): void {
    this.kept = emptiedForReuse(this.kept);
    this.lines = emptiedForReuse(this.lines);
  }

  /** Copies of the parts and their first lines (for tests and the curious: a scanner reads part(k)). */
  parts(): OutputPart[] {
    return this.kept.slice();
  }

  firstLines(): number[] {
    return this.lines.slice();
  }
}
