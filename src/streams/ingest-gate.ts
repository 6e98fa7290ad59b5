import { INGEST_BYTES_PER_TURN } from '../limits.js';

interface Waiting {
  readonly resume: () => void;
  /** The size of the chunk it delivered last: what letting it read again will likely cost. */
  readonly bytes: number;
}

/**
 * Shares each turn of the host's event loop among the PTYs that have output waiting. A PTY's stdout delivers one
 * chunk (up to 64 KiB), pauses and queues here; once per turn the gate resumes queued PTYs, oldest first, until
 * their expected chunks add up to the budget, and keeps the rest queued for the next turn. Without it, one chunk
 * per PTY per turn still meant 16 × 64 KiB rendered in one turn under a flood: ~45 ms of event-loop lag p99
 * (docs/PERFORMANCE.md). One PTY alone is never held back (a chunk is at most 64 KiB, under the budget), and the
 * queue holds each live PTY at most once, so it is bounded by the registry's limit on PTYs.
 */
export class IngestGate {
  /** Insertion order is resume order: a PTY not resumed this turn keeps its place at the front. */
  private readonly waiting = new Map<number, Waiting>();
  private nextTicket = 1;
  private armed = false;

  constructor(
    private readonly budgetBytes: number = INGEST_BYTES_PER_TURN,
    private readonly schedule: (turn: () => void) => void = setImmediate,
  ) {}

  /**
   * The caller has just delivered `bytes` and paused; `resume` is called in a later turn, when the budget allows.
   * Returns the cancel for a stream that ends first (its resume is then never called).
   */
  defer(bytes: number, resume: () => void): () => void {
    const ticket = this.nextTicket++;
    this.waiting.set(ticket, { resume, bytes });
    this.arm();
    return () => {
      this.waiting.delete(ticket);
    };
  }

  /** PTYs waiting for their turn (for tests). */
  get queued(): number {
    return this.waiting.size;
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    this.schedule(() => this.turn());
  }

  private turn(): void {
    this.armed = false;
    let granted = 0;
    for (const [ticket, waiting] of this.waiting) {
      // At least one per turn, so a chunk larger than the whole budget still gets through.
      if (granted > 0 && granted + waiting.bytes > this.budgetBytes) break;
      granted += waiting.bytes;
      this.waiting.delete(ticket);
      waiting.resume();
    }
    if (this.waiting.size > 0) this.arm();
  }
}

/** One gate per host process: every PTY of every plugin instance shares the same event loop. */
export const ingestGate = new IngestGate();
