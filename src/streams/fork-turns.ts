import { Observable } from 'rxjs';
import { TurnTrigger } from './turn-trigger.js';

/**
 * PTY starts spread over the host's event loop, one per turn of it. A start holds the host's thread until `script`
 * has exec'd (libuv forks and waits for the exec; Bun's posix_spawn waits as well): 2.5–7 ms alone here, and 10–13 ms
 * each when many start together, since the chains started just before run on the other core meanwhile. PTYs asked
 * for in the same turn (parallel tool calls, permissions allowed by configuration) started back to back: 16 of them
 * held the loop 220–330 ms in one stretch, in Node and in Bun alike (docs/perf-journal.md, twenty-third session), so
 * that nothing else the host does (the TUI, other sessions' tools, output) ran meanwhile.
 *
 * The first start of a turn goes at once: a lone spawn waits for nothing. Any other waits for a turn of the loop that
 * no start has had, oldest first, and one such turn follows another only once the loop has been round (its timers and
 * I/O served). A start given up while it waits (its PTY killed, its owner deleted) leaves the queue and never runs.
 * Bounded: a PTY's start waits at most once, and the registry bounds the PTYs.
 */
export class ForkTurns {
  /** Whether a start has run since the last turn of the trigger: that stretch of the loop has had its start. */
  private started = false;
  private readonly waiting: Array<() => void> = [];
  private readonly trigger: TurnTrigger;

  constructor(schedule?: (turn: () => void) => void) {
    this.trigger = new TurnTrigger(() => this.turn(), schedule);
  }

  /**
   * `start$`, subscribed in a turn of its own: at once when this turn has had no start and none waits, else in a
   * later turn. Unsubscribed before then, `start$` is never subscribed.
   */
  inTurn<T>(start$: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      // Subscribed with the subscriber itself, the start is torn down with it.
      const start = () => start$.subscribe(subscriber);
      if (!this.started && this.waiting.length === 0) {
        this.take();
        start();
      } else {
        this.waiting.push(start);
        this.trigger.arm();
      }
      return () => {
        const at = this.waiting.indexOf(start);
        if (at !== -1) this.waiting.splice(at, 1);
      };
    });
  }

  /** Starts waiting for their turn (for tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private take(): void {
    this.started = true;
    // The next turn of the trigger gives the loop's next stretch back its start.
    this.trigger.arm();
  }

  private turn(): void {
    const hadStart = this.started;
    this.started = false;
    // A start ran since the last turn (at once, from I/O or a timer): this stretch of the loop has had it. The next
    // waiter goes a turn later, after the loop has been round, not right behind it.
    if (hadStart) {
      if (this.waiting.length > 0) this.trigger.arm();
      return;
    }
    const next = this.waiting.shift();
    if (next === undefined) return;
    this.take();
    next();
  }
}

/** One per host process: every plugin instance's PTYs start on the same event loop. */
export const forkTurns = new ForkTurns();

/** `start$` in a turn of `turns` (the shared queue when undefined); `null`: at subscribe, whatever else started. */
export function inForkTurn<T>(start$: Observable<T>, turns: ForkTurns | null = forkTurns): Observable<T> {
  return turns === null ? start$ : turns.inTurn(start$);
}
