import type { SeenGroups } from '../operators/seen-groups.js';
import type { SessionSweeper } from '../operators/sweep-session.js';
import { readStat } from '../engine/procfs.js';
import { procMemberProbe } from './session-members.js';
import { signalQuietly, signalSessionGroup } from './session-signals.js';
import { procStepTurns } from './step-turns.js';

/** The real signals for a sweep of `terminalSid`, whose `script` is `scriptPid`. */
export function procSweeper(
  terminalSid: number,
  notBefore: number,
  scriptPid: number,
  groups?: SeenGroups,
): SessionSweeper {
  const probe = procMemberProbe(terminalSid, notBefore, groups);
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
