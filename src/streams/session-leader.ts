import {
  asyncScheduler,
  concatWith,
  defer,
  endWith,
  filter,
  ignoreElements,
  map,
  NEVER,
  Observable,
  race,
  type SchedulerLike,
  share,
  switchMap,
  take,
  timer,
} from 'rxjs';
import { childrenOf } from '../engine/procfs.js';
import {
  LEADER_REPORT_GRACE_MS,
  MAX_PID_REPORT_BYTES,
  SESSION_LEADER_FULL_SCAN_MS,
  SESSION_LEADER_LOOKUP_MS,
  SESSION_LEADER_POLL_MS,
} from '../limits.js';

/**
 * A PTY's session leader, the terminal session's id: script forks, the child calls setsid() and execs the wrapper,
 * which reports its pid on the argv channel (when there is one); /proc is polled for a report that never comes.
 * Emits the sid, or null once the lookup's deadline passed first, then completes.
 */
export function sessionLeader$(
  argvChannel: NodeJS.ReadableStream | undefined,
  scriptPid: number,
  scheduler?: SchedulerLike,
): Observable<number | null> {
  const polled$ = leaderLookup$(procLeaderProbe(scriptPid), {
    pollMs: SESSION_LEADER_POLL_MS,
    fullScanMs: SESSION_LEADER_FULL_SCAN_MS,
    deadlineMs: SESSION_LEADER_LOOKUP_MS,
    ...(scheduler ? { scheduler } : {}),
  });
  if (argvChannel === undefined) return polled$;
  return reportFirst$(reportedLeader$(argvChannel, scriptPid), polled$, LEADER_REPORT_GRACE_MS, scheduler);
}

/**
 * The report's value; `polled$` is its fallback, subscribed only once `report$` completes without a value or
 * `graceMs` pass without one. From then on, whichever of the two gives a value first is taken. Emits one value,
 * then completes; the report is subscribed once.
 */
export function reportFirst$(
  report$: Observable<number>,
  polled$: Observable<number | null>,
  graceMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<number | null> {
  return defer(() => {
    const shared$ = report$.pipe(share());
    // A report that ends empty must not end the race: only a value may.
    const reported$ = shared$.pipe(concatWith(NEVER));
    const fallback$ = race(shared$.pipe(ignoreElements(), endWith(undefined)), timer(graceMs, scheduler)).pipe(
      take(1),
      switchMap(() => polled$),
    );
    return race(reported$, fallback$).pipe(take(1));
  });
}

/** Finds the PTY's session leader: the child of `script` that has called setsid() (its pid is then the sid). */
export interface LeaderProbe {
  /** `nearOnly` probes only the next few pids (cheap); otherwise all of /proc may be scanned. */
  find(nearOnly: boolean): number | null;
}

export interface LeaderLookupOptions {
  readonly pollMs: number;
  /** Between full scans; the polls in between are near-only. */
  readonly fullScanMs: number;
  /** Past this, the lookup gives up with null. */
  readonly deadlineMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The terminal session id of a fresh PTY, polled on the scheduler: emits the sid once found, or null when the
 * deadline passes first (the command ended before it was seen), then completes. The child almost always got one
 * of the next few pids, so most polls probe only those; all of /proc is scanned only every `fullScanMs`.
 */
export function leaderLookup$(probe: LeaderProbe, options: LeaderLookupOptions): Observable<number | null> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(() => {
    const start = scheduler.now();
    let nextFullScan = start + options.fullScanMs;
    return timer(0, options.pollMs, scheduler).pipe(
      map(() => {
        const now = scheduler.now();
        const full = now >= nextFullScan;
        if (full) nextFullScan = now + options.fullScanMs;
        return probe.find(!full);
      }),
      filter((sid) => sid !== null || scheduler.now() - start >= options.deadlineMs),
      take(1),
    );
  });
}

/** The child of script once it has called setsid(). */
export function procLeaderProbe(scriptPid: number): LeaderProbe {
  return {
    find: (nearOnly) => {
      for (const c of childrenOf(scriptPid, nearOnly)) {
        if (c.sessionId === c.pid) return c.pid;
      }
      return null;
    },
  };
}

/**
 * The session leader's pid as the wrapper reports it on the argv channel before it execs the program (see
 * script-invocation.ts): known even when the program exits at once, without polling /proc. Emits the pid, then
 * completes; completes without a value if the channel ends without a usable report (not a pid, or script's own).
 *
 * Nothing else can write there: the channel is the host's socket, inherited by setpriv and script, which never touch
 * it, and by the wrapper, which closes it before the exec. So the report is not checked in /proc: at that moment
 * the wrapper is exec'ing, and reading its stat held the host's thread 0.7 ms per spawn (measured on a slow day),
 * right on the way to the first byte.
 */
export function reportedLeader$(channel: NodeJS.ReadableStream, scriptPid: number): Observable<number> {
  return new Observable<number>((subscriber) => {
    let text = '';
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const newline = text.indexOf('\n');
      if (newline < 0 && text.length < MAX_PID_REPORT_BYTES) return;
      const pid = Number(text.slice(0, newline < 0 ? undefined : newline));
      if (Number.isSafeInteger(pid) && pid > 1 && pid !== scriptPid) subscriber.next(pid);
      subscriber.complete();
    };
    const onEnd = () => subscriber.complete();
    channel.on('data', onData);
    channel.on('end', onEnd);
    channel.on('close', onEnd);
    return () => {
      channel.off('data', onData);
      channel.off('end', onEnd);
      channel.off('close', onEnd);
      // Never destroyed here: the argv may still be on its way out. Drained, it closes when the wrapper closes fd 3.
      channel.resume();
    };
  });
}
