import { constants } from 'node:os';
import { isSignalPending, readStat, readWaitChannel, readZombie } from './procfs.js';

// util-linux `script` hears of its child's death from a SIGCHLD it reads off a signalfd, and SIGCHLD is not queued:
// if one is still pending when the child dies (for the child's stop or continue, unread because script was off the
// CPU or stopped itself), the death adds nothing. script then never reaps its child and sleeps in poll() for ever
// beside the zombie, its terminal session empty. A sweep that STOPs and KILLs the leader on a loaded machine gets
// there (seen in CI), and so does a leader that stopped itself and is continued and TERMed.

/** The program's wait status while it is a zombie that `script` has not reaped; undefined otherwise. */
export function unreapedLeaderStatus(scriptPid: number, leaderPid: number): number | undefined {
  const zombie = readZombie(leaderPid);
  return zombie?.ppid === scriptPid ? zombie.waitStatus : undefined;
}

/** Where script's main loop sleeps: in poll(2), on its signalfd, the PTY master and its stdin. */
const POLL_WAIT = /^(?:poll_schedule_timeout|do_sys_poll|do_poll)/;

/**
 * The leader's wait status when `script` has missed its death: the leader is script's unreaped zombie while script
 * sleeps in poll(2) with no SIGCHLD pending. script reaps right after it reads the signal, never sleeping in between,
 * so such a script never wakes. undefined otherwise: for a stopped script (the backstop's nudge continues it), and
 * for one blocked elsewhere, such as writing output to a full pipe (killing it would lose that output), or when the
 * kernel does not say where it sleeps.
 */
export function missedLeaderDeath(scriptPid: number, scriptStart: number, leaderPid: number): number | undefined {
  if (unreapedLeaderStatus(scriptPid, leaderPid) === undefined) return undefined;
  const script = readStat(scriptPid);
  if (script?.startTime !== scriptStart || script.state !== 'S') return undefined;
  if (!POLL_WAIT.test(readWaitChannel(scriptPid) ?? '')) return undefined;
  if (isSignalPending(scriptPid, constants.signals.SIGCHLD) !== false) return undefined;
  // Still unreaped after the look at script: it did not reap in between.
  return unreapedLeaderStatus(scriptPid, leaderPid);
}

/** The exit code `script -e` gives for a wait status: the program's own, or 128+n when signal n ended it. */
export function scriptExitCode(waitStatus: number): number {
  const signal = waitStatus & 0x7f;
  return signal === 0 ? (waitStatus >> 8) & 0xff : 128 + signal;
}
