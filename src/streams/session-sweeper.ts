import { isStopped, type ScannedMember, type SessionSweeper } from '../operators/sweep-session.js';
import { readStat } from '../engine/procfs.js';
import { sessionScanner } from './session-scanner.js';
import { signalQuietly, signalSessionGroup } from './session-signals.js';
import { procStepTurns } from './step-turns.js';

/**
 * The real signals for a sweep of `terminalSid`, whose `script` is `scriptPid`. Its scans are the scanner's own: the
 * sweep notes the groups they see (sweepSession's SeenGroups).
 */
export function procSweeper(terminalSid: number, notBefore: number, scriptPid: number): SessionSweeper {
  const scanner = sessionScanner(terminalSid, notBefore);
  // A member made while a freezing scan ran, stopped the moment it is read: by pid, and by its group, which a child it
  // forked meanwhile may still be in.
  const stopAtOnce = (member: ScannedMember): void => {
    signalQuietly(member.pid, 'SIGSTOP');
    signalSessionGroup(terminalSid, notBefore, member.pgrp, 'SIGSTOP', [member]);
  };
  return {
    warm: scanner.warm,
    turn: () => procStepTurns.next(),
    scan: (freezing) => scanner.scan(freezing === true ? stopAtOnce : undefined),
    complete: scanner.complete,
    signal: (pid, signal) => signalQuietly(pid, signal),
    signalGroup: (pgid, signal, seen) => signalSessionGroup(terminalSid, notBefore, pgid, signal, seen),
    resumeOutsiders: () => {
      const stat = readStat(scriptPid);
      if (stat !== undefined && stat.startTime === notBefore && isStopped(stat.state))
        signalQuietly(scriptPid, 'SIGCONT');
    },
  };
}
