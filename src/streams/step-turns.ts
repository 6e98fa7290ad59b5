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
  private armed = false;

  constructor(private readonly schedule: (turn: () => void) => void = setImmediate) {}

  /** Resolves in a turn no other step of this queue has, after every step asked for before it. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  /** Steps waiting for their turn (for tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    // setImmediate: a callback scheduled while the loop runs immediates waits for the loop's next iteration, so
    // the step after this one cannot join it in the same stretch of the loop.
    this.schedule(() => this.turn());
  }

  private turn(): void {
    this.armed = false;
    const resolve = this.waiting.shift();
    if (this.waiting.length > 0) this.arm();
    resolve?.();
  }
}

/** One per host process: every /proc step of every plugin instance shares the same event loop. */
export const procStepTurns = new StepTurns();
