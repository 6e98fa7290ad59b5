import type { Subscriber } from 'rxjs';
import { MAX_OUTPUT_BEFORE_START_BYTES } from '../limits.js';
import type { ChildEvent } from './child-process-events.js';
import { keptOutputEvent, type PtyEvent, startedEvent, stdoutEvent } from './pty-events.js';
import type { PtyHandle } from './pty-process.js';
import type { Utf8Chunks } from './utf8-chunks.js';

/**
 * A PTY's events with `started` first: what comes before it (output that beat the leader's lookup) is held until then.
 * A class, not closures: every chunk passes through `emit` (see tapHandler).
 */
export class StartFirst {
  private begun = false;
  private readonly early: PtyEvent[] = [];
  private heldBytes = 0;

  /**
   * `overflow` is called once the output held exceeds `maxHeldBytes`: it must start (see start), so that what waits
   * for the leader's lookup stays bounded.
   */
  constructor(
    private readonly subscriber: Subscriber<PtyEvent>,
    private readonly overflow: () => void = () => undefined,
    private readonly maxHeldBytes: number = MAX_OUTPUT_BEFORE_START_BYTES,
  ) {}

  /** Whether `started` has gone out. */
  get started(): boolean {
    return this.begun;
  }

  emit(event: PtyEvent): void {
    if (this.begun) {
      this.subscriber.next(event);
      return;
    }
    if (event.kind !== 'output') {
      this.early.push(event);
      return;
    }
    // Held past its delivery: its bytes must be its own (see keptOutputEvent).
    this.early.push(keptOutputEvent(event));
    this.heldBytes += event.bytes;
    if (this.heldBytes > this.maxHeldBytes) this.overflow();
  }

  start(handle: PtyHandle): void {
    if (this.begun) return;
    this.begun = true;
    this.heldBytes = 0;
    this.subscriber.next(startedEvent(handle));
    for (const event of this.early.splice(0)) this.subscriber.next(event);
  }
}

export type NotOutput = Exclude<ChildEvent, { kind: 'stdout' }>;

/**
 * The child's events: output, the event of every chunk, the short way (decoded and emitted by methods, see
 * tapHandler), the rest (a few per PTY) to `rest`, matched there.
 */
export class OutputFirst {
  constructor(
    private readonly order: StartFirst,
    private readonly decoder: Utf8Chunks,
    private readonly rest: (event: NotOutput) => void,
  ) {}

  next(event: ChildEvent): void {
    if (event.kind === 'stdout') this.order.emit(stdoutEvent(this.decoder, event.chunk));
    else this.rest(event);
  }
}
