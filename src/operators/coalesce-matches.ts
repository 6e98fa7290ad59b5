import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';

export interface Coalesced<T> {
  /** The first item not yet passed on. */
  readonly first: T;
  /** How many more arrived after it, before this was passed on. */
  readonly more: number;
}

/**
 * Throttle with a trailing count: the first item passes at once and opens a window of `intervalMs`; items in the
 * window are held (the first of them) and counted, and passed on as one when the window closes, which opens the
 * next one. So at most one emission per `intervalMs`, none lost uncounted. When the source completes, what is
 * held is dropped, not flushed: a watched PTY that ended sends no match after its end (its exit says it ended).
 *
 * @example
 * matches$.pipe(coalesceMatches(2_000)) // a burst of 500 ERROR lines: one now, one carrying `more: 498` 2 s later
 */
export function coalesceMatches<T>(
  intervalMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, Coalesced<T>> {
  return (source) =>
    new Observable<Coalesced<T>>((subscriber) => {
      let window: Subscription | undefined;
      let held: { first: T; count: number } | undefined;
      const openWindow = (): void => {
        window = scheduler.schedule(() => {
          window = undefined;
          if (held === undefined) return;
          const { first, count } = held;
          held = undefined;
          subscriber.next({ first, more: count - 1 });
          openWindow();
        }, intervalMs);
      };
      const upstream = source.subscribe({
        next: (item) => {
          if (window === undefined) {
            subscriber.next({ first: item, more: 0 });
            openWindow();
          } else if (held === undefined) held = { first: item, count: 1 };
          else held.count++;
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        upstream.unsubscribe();
        window?.unsubscribe();
      };
    });
}
