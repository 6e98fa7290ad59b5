import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';

/**
 * Emits each time `quietMs` pass without a value, counted from the latest value (so never before the first), and
 * completes with the source (a quiet spell still running then is dropped).
 *
 * `switchMap(() => timer(quietMs))` does the same but makes and cancels a timer for every value: 1.9 µs each,
 * about 1 ms of host CPU per MiB of a flood while a `quietMs` wait is pending. Here a value only notes the time;
 * one timer runs at a time, and when it fires early for a later value it sleeps the rest of that value's spell.
 */
export function quietAfter<T>(quietMs: number, scheduler: SchedulerLike = asyncScheduler): OperatorFunction<T, void> {
  return (source) =>
    new Observable<void>((subscriber) => {
      let latest = 0;
      let timer: Subscription | undefined;
      const check = (): void => {
        const idle = scheduler.now() - latest;
        if (idle >= quietMs) {
          timer = undefined;
          subscriber.next();
        } else {
          timer = scheduler.schedule(check, quietMs - idle);
        }
      };
      const upstream = source.subscribe({
        next: () => {
          latest = scheduler.now();
          timer ??= scheduler.schedule(check, quietMs);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        upstream.unsubscribe();
        timer?.unsubscribe();
      };
    });
}
