import { type ProcStat, readStat } from '../engine/procfs.js';
import type { ScannedMember, SweepSignal } from '../operators/sweep-session.js';

/** A live member of `terminalSid` (the convention of every scan: not a zombie, not older than script). */
export function isMember(stat: ProcStat | undefined, terminalSid: number, notBefore: number): stat is ProcStat {
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
export function signalSessionGroup(
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

export function signalQuietly(pid: number, signal: SweepSignal): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
