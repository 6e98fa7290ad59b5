import {
  asyncScheduler,
  concat,
  defer,
  distinctUntilChanged,
  filter,
  map,
  Observable,
  of,
  type SchedulerLike,
  take,
  takeWhile,
  timer,
} from 'rxjs';
import { childrenOf, type ProcStat, readStat } from '../engine/procfs.js';
import { MAX_PID_REPORT_BYTES } from '../limits.js';
import { groupsSeen, type ScannedMember, type SessionSweeper, type SweepSignal } from '../operators/sweep-session.js';
import { sessionScanner } from './session-scanner.js';
import { procStepTurns } from './step-turns.js';

/** Finds the PTY's session leader: the child of `script` that has called setsid() (its pid is then the sid). */
export interface LeaderProbe {
  /** `nearOnly` probes only the next few pids (cheap); otherwise all of /proc may be scanned. */
  find(nearOnly: boolean): number | null;
}

/** Watches the members of a terminal session. */
export interface MemberProbe {
  /** Every live member now: a full /proc scan, milliseconds on a busy machine. */
  scan(): readonly ScannedMember[];
  /** The same scan spread over event-loop turns (SessionScanner.scanInSlices). */
  scanInSlices(): Promise<readonly ScannedMember[]>;
  /** Whether one known pid is still a live member: one small read. */
  stillMember(pid: number): boolean;
  /** Lists /proc (reads nothing) so that the record of which pids are strangers stays valid (ListedSessions). */
  keepListed(): void;
  /** Makes that record valid, reading in slices what it lacks: a scan right after reads only members and new pids. */
  warm(): Promise<void>;
  /**
   * A scan made while the process groups of the latest scan (and the leader's) are stopped, then continued. A plain
   * scan can miss a process that forks and exits faster than /proc is read; a stopped one cannot move. Used before
   * saying "empty".
   */
  frozenScan(): readonly ScannedMember[];
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

export interface LingerOptions {
  /** How often the known members are checked, one cheap read each. */
  readonly pollMs: number;
  /** How often the whole session is rescanned (finds members the known ones made), and always once they are all gone. */
  readonly fullScanMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The pids of a session whose leader has exited, at a bounded cost: emits the members found at subscribe, then
 * each time the set changes; emits `[]` and completes when the session is empty. Known members are checked every
 * `pollMs` with one stat read each, and /proc is listed (not read) to keep the record of strangers valid; a full
 * scan only every `fullScanMs`, or when the known ones are all gone (to be sure nothing new is left before it says
 * empty), and it reads only the pids new since.
 */
export function lingeringMembers$(probe: MemberProbe, options: LingerOptions): Observable<readonly number[]> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(() => {
    let lastFullScan = scheduler.now();
    let known: readonly number[] = trustedScan(probe).map((m) => m.pid);
    const check = (): readonly number[] => {
      const now = scheduler.now();
      const left = known.filter((pid) => probe.stillMember(pid));
      if (left.length === 0 || now - lastFullScan >= options.fullScanMs) {
        lastFullScan = now;
        known = trustedScan(probe).map((m) => m.pid);
      } else {
        known = left;
        // A listing now and then keeps the record of strangers valid: the next full scan reads only new pids.
        probe.keepListed();
      }
      return known;
    };
    return concat(of(known), timer(options.pollMs, options.pollMs, scheduler).pipe(map(check))).pipe(
      distinctUntilChanged(samePids),
      takeWhile((pids) => pids.length > 0, true),
    );
  });
}

/** A plain scan, or a frozen one when the plain one finds nothing. */
function trustedScan(probe: MemberProbe): readonly ScannedMember[] {
  const members = probe.scan();
  return members.length > 0 ? members : probe.frozenScan();
}

/**
 * trustedScan with the plain scan spread over event-loop turns. The frozen scan that follows an empty one stays in
 * one piece (it must see the stopped session at one instant), and is cheap then: the plain scan has just listed
 * every stranger, whose stat files it does not read again. It is a step of its own (procStepTurns): in the turn of
 * the last slice, its listing of /proc doubled that turn.
 */
export async function trustedScanInSlices(probe: MemberProbe): Promise<readonly ScannedMember[]> {
  const members = await probe.scanInSlices();
  if (members.length > 0) return members;
  await procStepTurns.next();
  return probe.frozenScan();
}

function samePids(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((pid, i) => pid === b[i]);
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
 * Members of `terminalSid` that started no earlier than `notBefore` (script's start: a pid-reuse guard). Remembers
 * the process groups of its latest scan (and the leader's, whose id is the sid) for its frozen scans: a lingering
 * PTY may live for hours, and a group that emptied meanwhile may be one of the user's jobs by then.
 */
export function procMemberProbe(terminalSid: number, notBefore: number): MemberProbe {
  let groups = groupsSeen([terminalSid], []);
  const scanner = sessionScanner(terminalSid, notBefore);
  const noteGroups = (members: readonly ScannedMember[]): readonly ScannedMember[] => {
    groups = groupsSeen([terminalSid], members);
    return members;
  };
  const scan = (): readonly ScannedMember[] => noteGroups(scanner.scan());
  return {
    scan,
    scanInSlices: async () => noteGroups(await scanner.scanInSlices()),
    keepListed: scanner.keepListed,
    warm: scanner.warm,
    frozenScan: () => {
      const stopped = new Set<number>();
      for (const [pgrp, seen] of groups)
        if (signalSessionGroup(terminalSid, notBefore, pgrp, 'SIGSTOP', seen)) stopped.add(pgrp);
      try {
        return scan();
      } finally {
        // Only what was stopped is continued, while a member is still in it (this scan's, if it finished): the
        // members of a stopped group cannot leave it, so a group this scan did not see has emptied.
        for (const [pgrp, seen] of groups)
          if (stopped.has(pgrp)) signalSessionGroup(terminalSid, notBefore, pgrp, 'SIGCONT', seen);
      }
    },
    stillMember: (pid) => isMember(readStat(pid), terminalSid, notBefore),
  };
}

/** A live member of `terminalSid` (the convention of every scan: not a zombie, not older than script). */
function isMember(stat: ProcStat | undefined, terminalSid: number, notBefore: number): stat is ProcStat {
  return stat !== undefined && stat.sessionId === terminalSid && stat.state !== 'Z' && stat.startTime >= notBefore;
}

/**
 * Signals the process group `pgid` of the session `terminalSid` (kill(-pgid)) only while it is one, and says whether
 * it did: one of the members a scan `seen` in it is still a live member of the session in that group (a live member
 * holds the group's id; an id whose group has emptied may be reused once pids wrap around, for a job of the user's
 * that SIGCONT would resume or SIGKILL end). The leader's own group, whose id is the sid, also when no member of it
 * is known alive (the program's children stay in it after the leader exits, and Linux does not reuse a pid that
 * names a live session), unless that pid is now a process of another session. A group id ≤ 1 would mean "our own
 * group" or "everyone": never sent, whatever a scan said.
 */
function signalSessionGroup(
  terminalSid: number,
  notBefore: number,
  pgid: number,
  signal: SweepSignal,
  seen: readonly ScannedMember[],
): boolean {
  if (pgid <= 1) return false;
  let ours = seen.some((m) => {
    const stat = readStat(m.pid);
    return isMember(stat, terminalSid, notBefore) && stat.pgrp === pgid;
  });
  if (!ours && pgid === terminalSid) {
    const leader = readStat(pgid);
    ours = leader === undefined || leader.sessionId === terminalSid;
  }
  if (ours) signalQuietly(-pgid, signal);
  return ours;
}

/** The real signals for a sweep of `terminalSid`, whose `script` is `scriptPid`. */
export function procSweeper(terminalSid: number, notBefore: number, scriptPid: number): SessionSweeper {
  const probe = procMemberProbe(terminalSid, notBefore);
  return {
    warm: probe.warm,
    turn: () => procStepTurns.next(),
    scan: probe.scan,
    signal: (pid, signal) => signalQuietly(pid, signal),
    signalGroup: (pgid, signal, seen) => signalSessionGroup(terminalSid, notBefore, pgid, signal, seen),
    resumeOutsiders: () => {
      const stat = readStat(scriptPid);
      if (stat !== undefined && stat.startTime === notBefore && (stat.state === 'T' || stat.state === 't'))
        signalQuietly(scriptPid, 'SIGCONT');
    },
  };
}

export function signalQuietly(pid: number, signal: SweepSignal): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
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
