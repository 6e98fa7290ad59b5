import {
  first,
  ignoreElements,
  map,
  merge,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
  switchMap,
  take,
  tap,
  timeout,
  timer,
} from 'rxjs';
import { killAndReap } from './kill-and-reap.js';

export interface BackstopOptions {
  readonly backstopMs: number;
  /**
   * Called at once and every `nudgeMs` while waiting: wakes a `script` that stopped itself (it does when its child,
   * the session leader, is stopped by a freeze, and a stopped script never exits).
   */
  readonly nudge: () => void;
  readonly nudgeMs: number;
  /** After the kill at the backstop, how long to wait for script to be reaped (see killAndReap). */
  readonly reapMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * After a sweep, `script` exits by itself once its session is empty (with 128+n); this waits for that for at most
 * `backstopMs` and then kills `script` (a stuck one would hold the PTY and its master open) and waits, at most
 * `reapMs`, for it to be gone. Adds to the report whether it had to kill.
 *
 * @example
 * sweepSession(sweeper, options).pipe(scriptBackstop(exited$, () => kill(scriptPid, 'SIGKILL'), { backstopMs: 1_000, nudge, nudgeMs: 25, reapMs: 1_000 }))
 */
export function scriptBackstop<R extends object>(
  exited$: Observable<unknown>,
  killScript: () => void,
  options: BackstopOptions,
): OperatorFunction<R, R & { readonly scriptKilled: boolean }> {
  const { backstopMs, nudge, nudgeMs, reapMs, scheduler } = options;
  return (source) =>
    source.pipe(
      switchMap((report) =>
        merge(timer(0, nudgeMs, scheduler).pipe(tap(nudge), ignoreElements()), exited$.pipe(first())).pipe(
          take(1),
          map(() => ({ ...report, scriptKilled: false })),
          timeout({
            first: backstopMs,
            with: () =>
              killAndReap(exited$, killScript, { reapMs, ...(scheduler ? { scheduler } : {}) }).pipe(
                map(() => ({ ...report, scriptKilled: true })),
              ),
            ...(scheduler ? { scheduler } : {}),
          }),
        ),
      ),
    );
}
