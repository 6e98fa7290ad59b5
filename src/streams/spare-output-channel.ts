import { asyncScheduler, defer, type Observable, of, type SchedulerLike, Subscription, switchMap, timer } from 'rxjs';
import { OUTPUT_CHANNEL_REFILL_MS } from '../limits.js';

/** What a spare must offer: whether it can still carry output, and a way to hold it without keeping the host alive. */
export interface Spareable {
  /** Both ends open and nothing has ended: a start can hand it to `script`. */
  readonly usable: boolean;
  /** Kept idle: its sockets do not hold the host's event loop open (where the runtime lets them go). */
  idle(): void;
  /** Taken by a start: its sockets hold the loop open again, as any PTY's do. */
  inUse(): void;
  release(): void;
}

/**
 * One output socket pair made ahead of the next start, so that a start finds its pair ready: pairing takes turns of
 * the host's loop (listen, connect, accept, the token), and in Bun they put 0.7–0.85 ms on the way from spawn to
 * first byte (docs/perf-journal.md, thirty-fourth session). Holds at most one, and none until the first start asks
 * (an instance that never starts a PTY holds no socket). After each `take`, the next spare is paired
 * OUTPUT_CHANNEL_REFILL_MS later, when the start that took one has had its turns. A spare is already paired: its
 * listener is closed, so nobody can reach it while it waits (docs/TRUST-MODEL.md).
 */
export class SpareOutputChannel<C extends Spareable> {
  private spare: C | undefined;
  private refill: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly pair: () => Observable<C>,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {}

  /**
   * A channel for one start: the spare when one is ready and still usable, else one paired now (its failure is the
   * start's). Either way a new spare is on its way unless one already is. Cold: nothing is taken until subscribed.
   */
  take(): Observable<C> {
    return defer(() => {
      const ready = this.spare;
      this.spare = undefined;
      this.refillLater();
      if (ready?.usable) {
        ready.inUse();
        return of(ready);
      }
      ready?.release();
      return this.pair();
    });
  }

  /** Releases the spare and stops any pairing on its way; a later `take` pairs its own and keeps none. */
  close(): void {
    this.closed = true;
    this.refill?.unsubscribe();
    this.refill = undefined;
    this.spare?.release();
    this.spare = undefined;
  }

  private refillLater(): void {
    if (this.closed || this.refill !== undefined) return;
    const refill = new Subscription();
    this.refill = refill;
    const done = () => {
      if (this.refill === refill) this.refill = undefined;
    };
    refill.add(
      timer(OUTPUT_CHANNEL_REFILL_MS, this.scheduler)
        .pipe(switchMap(() => this.pair()))
        .subscribe({
          next: (channel) => {
            channel.idle();
            this.spare = channel;
            done();
          },
          // No spare then: the next start pairs its own, and a failure that lasts is reported there.
          error: done,
          complete: done,
        }),
    );
  }
}
