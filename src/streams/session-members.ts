import {
  asyncScheduler,
  concat,
  defer,
  distinctUntilChanged,
  map,
  type Observable,
  of,
  type SchedulerLike,
  takeWhile,
  timer,
} from 'rxjs';
import { readStat } from '../engine/procfs.js';
import { SeenGroups } from '../operators/seen-groups.js';
import { isStopped, type ScannedMember } from '../operators/sweep-session.js';
import { sessionScanner } from './session-scanner.js';
import { isMember, signalSessionGroup } from './session-signals.js';
import { procStepTurns } from './step-turns.js';

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
   * A scan made while the PTY's remembered process groups (SeenGroups) are stopped, then continued, except those its
   * own job control had stopped. A plain scan can miss a process that forks and exits faster than /proc is read; a
   * stopped one cannot move. Used before saying "empty".
   */
  frozenScan(): readonly ScannedMember[];
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

/**
 * Members of `terminalSid` that started no earlier than `notBefore` (script's start: a pid-reuse guard). Notes the
 * process groups its scans see in `groups` (the PTY's, shared with its sweeps; the leader's, whose id is the sid, is
 * known) for its frozen scans; a group whose id became another session's since is left alone (signalSessionGroup).
 */
export function procMemberProbe(
  terminalSid: number,
  notBefore: number,
  groups: SeenGroups = new SeenGroups([terminalSid]),
): MemberProbe {
  const scanner = sessionScanner(terminalSid, notBefore);
  /** Groups whose members were all stopped in the latest plain scan: the PTY's own job control stopped them. */
  let stoppedByJobControl = new Set<number>();
  const noteGroups = (members: readonly ScannedMember[]): readonly ScannedMember[] => {
    groups.note(members);
    return members;
  };
  // Only a plain scan tells what job control stopped: a frozen scan sees the STOP it just sent.
  const notePlain = (members: readonly ScannedMember[]): readonly ScannedMember[] => {
    const allStopped = new Map<number, boolean>();
    for (const m of members) allStopped.set(m.pgrp, (allStopped.get(m.pgrp) ?? true) && isStopped(m.state));
    stoppedByJobControl = new Set([...allStopped].filter(([, stopped]) => stopped).map(([pgrp]) => pgrp));
    return noteGroups(members);
  };
  const scan = (): readonly ScannedMember[] => notePlain(scanner.scan());
  return {
    scan,
    scanInSlices: async () => notePlain(await scanner.scanInSlices()),
    keepListed: scanner.keepListed,
    warm: scanner.warm,
    frozenScan: () => {
      // A group job control had stopped (Ctrl-Z in the PTY's shell) is stopped again here, and not continued after.
      const stoppedBefore = stoppedByJobControl;
      const stopped = groups.signal((pgrp, seen) => signalSessionGroup(terminalSid, notBefore, pgrp, 'SIGSTOP', seen));
      try {
        return noteGroups(scanner.scan());
      } finally {
        for (const [pgrp, seen] of groups.entries)
          if (stopped.has(pgrp) && !stoppedBefore.has(pgrp))
            signalSessionGroup(terminalSid, notBefore, pgrp, 'SIGCONT', seen);
      }
    },
    stillMember: (pid) => isMember(readStat(pid), terminalSid, notBefore),
  };
}
