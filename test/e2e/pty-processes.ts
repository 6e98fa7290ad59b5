/**
 * What a PTY of the plugin under test really is in /proc, and whether it is gone.
 *
 * `pty_spawn` answers with `pid`: the pid of `script` (bash → setpriv → script exec into one another). Script's
 * child called setsid() and exec'd the command, so the command is the leader of the PTY's session and its pid
 * is the session id; every process of the terminal (the command, its children, a shell's jobs) is a member.
 * A snapshot names each process by pid AND start time, so a reused pid is never mistaken for a survivor.
 */
import fs from 'node:fs';
import { allProcesses, readStat, type ProcStat } from '../../src/engine/procfs.js';

export interface ProcRef {
  pid: number;
  startTime: number;
  comm: string;
  cmdline: string;
}

export interface PtyProcesses {
  /** `script` (the pid pty_spawn reported). */
  script: ProcRef;
  /** The PTY's session id (= the command's pid), null if script had no session-leader child. */
  sessionId: number | null;
  /** Live members of the PTY session when the snapshot was taken (the command first). */
  members: ProcRef[];
}

function ref(stat: ProcStat): ProcRef {
  const read = (f: string): string => {
    try {
      return fs.readFileSync(`/proc/${stat.pid}/${f}`, 'utf8');
    } catch {
      return '';
    }
  };
  return { pid: stat.pid, startTime: stat.startTime, comm: read('comm').trim(), cmdline: read('cmdline').split('\0').join(' ').trim() };
}

export function isAlive(p: Pick<ProcRef, 'pid' | 'startTime'>): boolean {
  const stat = readStat(p.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === p.startTime;
}

/** The processes of the PTY whose `script` has `scriptPid`, read from /proc now. */
export function ptyProcesses(scriptPid: number): PtyProcesses {
  const script = readStat(scriptPid);
  if (!script || script.state === 'Z') throw new Error(`script pid ${scriptPid} is not running`);
  const all = allProcesses();
  const leader = all.find((p) => p.ppid === scriptPid && p.sessionId === p.pid);
  const members = leader
    ? all
        .filter((p) => p.sessionId === leader.pid && p.state !== 'Z' && p.startTime >= leader.startTime)
        .sort((a, b) => (a.pid === leader.pid ? -1 : b.pid === leader.pid ? 1 : a.startTime - b.startTime))
    : [];
  return { script: ref(script), sessionId: leader?.pid ?? null, members: members.map(ref) };
}

/**
 * Everything of these PTYs still alive: the snapshot's processes (same pid and start time), plus any live
 * member of their sessions started since (a loop's next `sleep`).
 */
export function survivors(ptys: PtyProcesses[]): ProcRef[] {
  const out = new Map<number, ProcRef>();
  for (const pty of ptys) {
    for (const p of [pty.script, ...pty.members]) if (isAlive(p)) out.set(p.pid, p);
    const leader = pty.members[0];
    if (pty.sessionId !== null && leader) {
      for (const p of allProcesses()) {
        if (p.sessionId === pty.sessionId && p.state !== 'Z' && p.startTime >= leader.startTime) out.set(p.pid, ref(p));
      }
    }
  }
  return [...out.values()];
}

/** Polls until none of `ptys` has a live process; resolves with the time it took, rejects naming the survivors. */
export async function waitUntilGone(ptys: PtyProcesses[], timeoutMs: number, stepMs = 25): Promise<number> {
  const start = Date.now();
  for (;;) {
    const left = survivors(ptys);
    if (left.length === 0) return Date.now() - start;
    if (Date.now() - start > timeoutMs) {
      throw new Error(`still alive after ${timeoutMs} ms: ${left.map((p) => `${p.pid} ${p.comm} (${p.cmdline})`).join('; ')}`);
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Live processes whose command line contains `token` (a unique word a test put into a command). */
export function processesWithToken(token: string): ProcRef[] {
  return allProcesses()
    .filter((p) => p.state !== 'Z' && p.pid !== process.pid)
    .map(ref)
    .filter((p) => p.cmdline.includes(token));
}

/** Live children of `pid` (e.g. the helper processes the plugin started inside `opencode serve`). */
export function childrenOf(pid: number): ProcRef[] {
  return allProcesses()
    .filter((p) => p.ppid === pid && p.state !== 'Z')
    .map(ref);
}
