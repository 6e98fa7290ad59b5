import { type ProcStat, readStat } from '../engine/procfs.js';
import type { ScannedMember, SweepSignal } from '../operators/sweep-session.js';

/** A live member of `terminalSid` (the convention of every scan: not a zombie, not older than script). */
export function isMember(stat: ProcStat | undefined, terminalSid: number, notBefore: number): stat is ProcStat {
  return stat !== undefined && stat.sessionId === terminalSid && stat.state !== 'Z' && stat.startTime >= notBefore;
}

/**
 * Signals the process group `pgid` of the session `terminalSid` (kill(-pgid)) unless its id may name another session's
 * group now, and says whether it did. A group's id is its leader's pid, and Linux does not hand that pid out again
 * while the group has a member: so while a member `seen` in it is still a live member of the session there, or the pid
 * is a process of this session, the group is ours; while no process has the pid, the group is ours or empty (a
 * fork-and-exit worm's group outlives every pid a scan saw in it, and its leader). Only a pid that is now a process of
 * another session, or a pid seen in the group that is now in it and another session's, is refused: the group emptied,
 * and its id went to a job of the user's, which SIGCONT would resume and SIGKILL end. (Left open: that stranger's
 * leader exiting while its job lives on, all within one PTY's life, pid numbers having wrapped around meanwhile; the
 * PTY's memory of groups keeps a worm's group, which the kernel's rule makes the common case, over that rare one.
 * docs/TRUST-MODEL.md says so.) A group id ≤ 1 would mean "our own group" or "everyone": never sent, whatever a scan
 * said.
 */
export function signalSessionGroup(
  terminalSid: number,
  notBefore: number,
  pgid: number,
  signal: SweepSignal,
  seen: readonly ScannedMember[],
): boolean {
  if (pgid <= 1) return false;
  let ours = false;
  for (const m of seen) {
    const stat = readStat(m.pid);
    if (stat === undefined || stat.pgrp !== pgid) continue;
    // A pid in that group now, of another session: the pid was reused, and the group is that session's.
    if (stat.sessionId !== terminalSid) return false;
    if (isMember(stat, terminalSid, notBefore)) ours = true;
  }
  ours ||= leaderIsOurs(pgid, terminalSid);
  if (ours) signalQuietly(-pgid, signal);
  return ours;
}

/** No process has the group's id, or it is one of this session's. */
function leaderIsOurs(pgid: number, terminalSid: number): boolean {
  const leader = readStat(pgid);
  return leader === undefined || leader.sessionId === terminalSid;
}

export function signalQuietly(pid: number, signal: SweepSignal): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
