/**
 * Runs `onTurn` in a later event-loop turn, once however often it is armed before then: what a gate that serves
 * its waiters a turn at a time schedules (IngestGate, StepTurns).
 */
export class TurnTrigger {
  private isArmed = false;
  /**
   * The last turn scheduled (Node's Immediate), kept after it ran: with none alive at a full collection, V8 drops the
   * hidden class it ends in and the optimized ingest gate with it, which the next flood compiles again (see Specimens).
   */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: it is held only so that it stays alive.
  private lastTurn: unknown;

  constructor(
    private readonly onTurn: () => void,
    /**
     * setImmediate by default: a callback scheduled while the loop runs immediates waits for its next iteration, so
     * a trigger armed from inside `onTurn` never runs in the same stretch of the loop.
     */
    private readonly schedule: (run: () => void) => unknown = setImmediate,
  ) {}

  /** A turn is scheduled and has not run yet. */
  get armed(): boolean {
    return this.isArmed;
  }

  arm(): void {
    if (this.isArmed) return;
    this.isArmed = true;
    this.lastTurn = this.schedule(this.run);
  }

  /** Made once: a flooding PTY arms the trigger at every chunk, and a closure per arm was garbage per chunk. */
  private readonly run = (): void => {
    this.isArmed = false;
    this.onTurn();
  };
}
