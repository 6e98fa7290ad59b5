import { INGEST_BYTES_PER_TURN, INGEST_CARRY_BYTES } from '../limits.js';
import { PAUSE_HOLDS_BACK_PIPE } from './pipe-backpressure.js';
import { TurnTrigger } from './turn-trigger.js';

interface Waiting {
  readonly resume: () => void;
  /** The size of the chunk it delivered last: what letting it read again will likely cost. */
  readonly bytes: number;
}

/**
 * Shares each turn of the host's event loop among the PTYs that have output. A chunk that fits what is left of this
 * turn's budget (or is its first), with nobody queued, is simply taken: the PTY keeps flowing (one PTY alone never
 * pauses, and pays no pause and no resume per chunk). Past the budget, a PTY pauses and queues here; once per turn
 * the gate resumes queued PTYs, oldest first, until their expected chunks add up to the budget, and keeps the rest
 * queued for the next turn. Without it, 16 flooding PTYs rendered 16 × 64 KiB in one turn: ~45 ms of event-loop lag
 * p99 (docs/perf-journal.md). The budget is given back by a turn of the gate's own, scheduled only once the output
 * taken since the last one reaches `carryBytes` (or a PTY queues): small reads, a REPL's lines, are summed across
 * turns and cost no `setImmediate` each. The queue holds each live PTY at most once, so it is bounded by the
 * registry's limit on PTYs; a turn renders at most about twice the budget, plus `carryBytes`, plus one chunk per
 * flowing PTY. It works only where a pause holds back the output (gateFor).
 */
export class IngestGate {
  /** Insertion order is resume order: a PTY not resumed this turn keeps its place at the front. */
  private readonly waiting = new Map<number, Waiting>();
  private nextTicket = 1;
  private readonly trigger: TurnTrigger;
  /** Bytes taken without a pause since the last turn of the gate (in this turn, or in earlier ones while unarmed). */
  private spent = 0;

  constructor(
    private readonly budgetBytes: number = INGEST_BYTES_PER_TURN,
    schedule?: (turn: () => void) => void,
    private readonly carryBytes: number = Math.min(INGEST_CARRY_BYTES, budgetBytes / 4),
  ) {
    this.trigger = new TurnTrigger(() => this.turn(), schedule);
  }

  /**
   * A chunk of `bytes` was just delivered: true if nobody waits and it is the first since the gate's last turn or
   * fits what is left of the budget (the stream keeps flowing); false if the caller must pause and `defer`. The first
   * goes whatever its size, as a resumed one does (turn): Bun reads a socket up to 512 KiB at a time, and one PTY
   * alone must not pause. Neither must it after small chunks: while no turn of the gate is scheduled, what was taken
   * is under `carryBytes`, and a chunk goes whatever its size.
   */
  admit(bytes: number): boolean {
    if (this.waiting.size > 0 || (this.trigger.armed && this.spent + bytes > this.budgetBytes)) return false;
    this.spent += bytes;
    // The budget is per turn: a turn of the gate gives it back, once there is enough to give back.
    if (this.spent >= this.carryBytes) this.trigger.arm();
    return true;
  }

  /**
   * The caller has just delivered `bytes` and paused; `resume` is called in a later turn, when the budget allows.
   * Returns the cancel for a stream that ends first (its resume is then never called).
   */
  defer(bytes: number, resume: () => void): () => void {
    const ticket = this.nextTicket++;
    this.waiting.set(ticket, { resume, bytes });
    this.trigger.arm();
    return () => {
      this.waiting.delete(ticket);
    };
  }

  /** PTYs waiting for their turn (for tests). */
  get queued(): number {
    return this.waiting.size;
  }

  private turn(): void {
    this.spent = 0;
    let granted = 0;
    for (const [ticket, waiting] of this.waiting) {
      // At least one per turn, so a chunk larger than the whole budget still gets through.
      if (granted > 0 && granted + waiting.bytes > this.budgetBytes) break;
      granted += waiting.bytes;
      this.waiting.delete(ticket);
      waiting.resume();
    }
    if (this.waiting.size > 0) this.trigger.arm();
  }
}

/** One gate per host process: every PTY of every plugin instance shares the same event loop. */
export const ingestGate = new IngestGate();

/**
 * The gate for a PTY whose output comes through an output socket (output-channel.ts) or else the runtime's pipe:
 * none where a pause would not hold the output back. A paused socket is read no more in either runtime, so `script`
 * blocks; a paused pipe is read on regardless in Bun (pipe-backpressure.ts), and there the PTY always flows.
 */
export const gateFor = (viaChannel: boolean): IngestGate | null =>
  viaChannel || PAUSE_HOLDS_BACK_PIPE ? ingestGate : null;
