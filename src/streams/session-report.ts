/** What a PTY reports about its terminal session: the members left in it, and how a termination went. */
import { commandLineOf } from '../engine/procfs.js';
import { MAX_LISTED_MEMBERS, MAX_MEMBER_COMMAND_CHARS } from '../limits.js';

/** A member of the PTY's terminal session, as the model sees it. */
export interface MemberInfo {
  readonly pid: number;
  readonly command: string;
}

/** Members of a terminal session: the exact count, and the first MAX_LISTED_MEMBERS by pid and command. */
export interface MemberList {
  readonly count: number;
  readonly listed: readonly MemberInfo[];
}

export const NO_MEMBERS: MemberList = { count: 0, listed: [] };

export interface TerminationReport {
  readonly termed: number;
  readonly escalated: boolean;
  /** `script` had to be SIGKILLed because it did not exit by itself after its session emptied. */
  readonly scriptKilled: boolean;
  /** Members still in the session when the termination's bound passed; count 0 means the session is empty. */
  readonly survivors: MemberList;
}

/** The count, and pid + command line of the first few (a member gone since the scan is left out of the list). */
export function describeMembers(pids: readonly number[]): MemberList {
  const listed: MemberInfo[] = [];
  for (const pid of pids) {
    if (listed.length >= MAX_LISTED_MEMBERS) break;
    const command = commandLineOf(pid, MAX_MEMBER_COMMAND_CHARS);
    if (command !== undefined) listed.push({ pid, command });
  }
  return { count: pids.length, listed };
}
