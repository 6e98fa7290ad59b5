import {
  filter,
  map,
  merge,
  type Observable,
  type OperatorFunction,
  of,
  type SchedulerLike,
  scan,
  switchMap,
  take,
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
  /**
   * Asked after each nudge: whether script is known never to exit by itself (it missed its child's death, see
   * script-missed-death.ts). After `stuckChecks` such answers in a row, script is killed without waiting for the
   * backstop.
   */
  readonly stuck: () => boolean;
  readonly stuckChecks: number;
  /** After the kill, how long to wait for script to be reaped (see killAndReap). */
  readonly reapMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * After a sweep, `script` exits by itself once its session is empty (with 128+n); this waits for that for at most
 * `backstopMs`, or until script is known stuck, and then kills `script` (a stuck one would hold the PTY and its
 * master open) and waits, at most `reapMs`, for it to be gone. Adds to the report whether it had to kill.
 *
 * @example
 * sweepSession(sweeper, options).pipe(scriptBackstop(exited$, () => kill(scriptPid, 'SIGKILL'), { backstopMs: 1_000, nudge, nudgeMs: 25, stuck, stuckChecks: 2, reapMs: 1_000 }))
 */
export function scriptBackstop<R extends object>(
  exited$: Observable<unknown>,
  killScript: () => void,
  options: BackstopOptions,
): OperatorFunction<R, R & { readonly scriptKilled: boolean }> {
  const { backstopMs, nudge, nudgeMs, stuck, stuckChecks, reapMs, scheduler } = options;
  const stuckFor$ = timer(0, nudgeMs, scheduler).pipe(
    map(() => {
      nudge();
      return stuck();
    }),
    scan((inARow, isStuck) => (isStuck ? inARow + 1 : 0), 0),
    filter((inARow) => inARow >= stuckChecks),
  );
  const killAt$ = merge(timer(backstopMs, scheduler), stuckFor$);
  return (source) =>
    source.pipe(
      switchMap((report) =>
        merge(exited$.pipe(map(() => false)), killAt$.pipe(map(() => true))).pipe(
          take(1),
          switchMap((kill) =>
            kill
              ? killAndReap(exited$, killScript, { reapMs, ...(scheduler ? { scheduler } : {}) }).pipe(
                  map(() => ({ ...report, scriptKilled: true })),
                )
              : of({ ...report, scriptKilled: false }),
          ),
        ),
      ),
    );
}
