import { TurnTrigger } from './turn-trigger.js';

/**
 * Hands out event-loop turns one at a time: each `next()` resolves in a turn of its own, oldest first. The PTYs of a
 * deleted owner or a closing host all reach their /proc work at once: the sweeps' synchronous steps (after one
 * shared warm-up, on the same poll ticks) and the slices of the scans at their exits. Each took its own
 * `setImmediate`, and immediates queued together run back to back: five sweeps held the host's loop 20–46 ms on a
 * machine with a thousand other processes, where one step (a listing of /proc and the reads it needs) or one slice
 * takes 3–8 ms. One step per turn keeps every stall to one step. A step still runs whole in its turn: a sweep acts
 * on what one scan saw.
 *
 * Bounded: each sweep and each scan waits for at most one turn at a time (its steps follow each other), and both
 * are bounded by the registry's limit on PTYs.
 */
export class StepTurns {
  private readonly waiting: Array<() => void> = [];
  private readonly trigger: TurnTrigger;

  constructor(schedule?: (turn: () => void) => void) {
    this.trigger = new TurnTrigger(() => this.turn(), schedule);
  }

  /** Resolves in a turn no other step of this queue has, after every step asked for before it. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.trigger.arm();
    });
  }

  /** Steps waiting for their turn (for tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private turn(): void {
    const resolve = this.waiting.shift();
    // Armed from inside a turn: the next step cannot join this one in the same stretch of the loop.
    if (this.waiting.length > 0) this.trigger.arm();
    resolve?.();
  }
}

/** One per host process: every /proc step of every plugin instance shares the same event loop. */
export const procStepTurns = new StepTurns();
