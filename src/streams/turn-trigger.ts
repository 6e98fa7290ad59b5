/**
 * Runs `onTurn` in a later event-loop turn, once however often it is armed before then: what a gate that serves
 * its waiters a turn at a time schedules (IngestGate, StepTurns).
 */
export class TurnTrigger {
  private armed = false;

  constructor(
    private readonly onTurn: () => void,
    /**
     * setImmediate by default: a callback scheduled while the loop runs immediates waits for its next iteration, so
     * a trigger armed from inside `onTurn` never runs in the same stretch of the loop.
     */
    private readonly schedule: (run: () => void) => void = setImmediate,
  ) {}

  arm(): void {
    if (this.armed) return;
    this.armed = true;
    this.schedule(() => {
      this.armed = false;
      this.onTurn();
    });
  }
}
