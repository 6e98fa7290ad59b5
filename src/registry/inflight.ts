import { PtyError } from '../errors.js';
import { MAX_INFLIGHT_PER_OWNER } from '../limits.js';

interface Operation {
  readonly controller: AbortController;
  readonly done: Promise<unknown>;
}

/**
 * Tool operations under way, per owner session, so that deleting the owner or closing the plugin can abort
 * them (an open permission prompt included) and wait until every one has settled.
 */
export class InFlight {
  private readonly byOwner = new Map<string, Set<Operation>>();

  constructor(private readonly maxPerOwner = MAX_INFLIGHT_PER_OWNER) {}

  run<T>(owner: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ops = this.byOwner.get(owner) ?? new Set<Operation>();
    if (ops.size >= this.maxPerOwner) {
      return Promise.reject(
        new PtyError(
          'busy',
          `this session has ${this.maxPerOwner} PTY operations under way (the limit). Wait for them to finish.`,
        ),
      );
    }
    this.byOwner.set(owner, ops);
    const controller = new AbortController();
    const done = work(controller.signal);
    const op: Operation = { controller, done };
    ops.add(op);
    const forget = () => {
      ops.delete(op);
      if (ops.size === 0 && this.byOwner.get(owner) === ops) this.byOwner.delete(owner);
    };
    done.then(forget, forget);
    return done;
  }

  abortOwner(owner: string, reason: Error): Promise<void> {
    return this.abortAll(reason, [...(this.byOwner.get(owner) ?? [])]);
  }

  abortEverything(reason: Error): Promise<void> {
    return this.abortAll(
      reason,
      [...this.byOwner.values()].flatMap((ops) => [...ops]),
    );
  }

  get size(): number {
    let n = 0;
    for (const ops of this.byOwner.values()) n += ops.size;
    return n;
  }

  private async abortAll(reason: Error, ops: Operation[]): Promise<void> {
    for (const op of ops) op.controller.abort(reason);
    await Promise.allSettled(ops.map((op) => op.done));
  }
}

/** Rejects with the signal's reason as soon as it aborts; the awaited promise is left to settle on its own. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
