import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { orphanGuard } from '../engine/orphan-guard.js';
import { allProcesses, childrenOf, readStat, sessionMembers, type ProcStat } from '../engine/procfs.js';

/** What the smoke process holds before a scenario runs: it must hold no more afterwards. */
export interface Holdings {
  /** Open descriptors of this process: fd number → what it points at. */
  readonly fds: ReadonlyMap<string, string>;
  /** pids of this process's direct children. */
  readonly children: ReadonlySet<number>;
}

export function openDescriptors(): Map<string, string> {
  const fds = new Map<string, string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      fds.set(fd, readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return fds;
}

/**
 * Direct children of this process, zombies included (a zombie child is a leak: nobody reaped it), except the
 * orphan guard: it belongs to the plugin, lives exactly while PTYs do and exits on its own (its own tests
 * prove that), so its coming and going is not a PTY started or left behind.
 */
export function childrenOfSelf(): ProcStat[] {
  // By pid, not by command line: an exiting guard is a zombie, whose command line is empty.
  return allProcesses().filter((p) => p.ppid === process.pid && !orphanGuard.pids.has(p.pid));
}

export function holdings(): Holdings {
  return { fds: openDescriptors(), children: new Set(childrenOfSelf().map((p) => p.pid)) };
}

export function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** "1234 sleep (S)" */
export function describeProcess(p: ProcStat): string {
  return `${p.pid} ${commOf(p.pid)} (${p.state === 'Z' ? 'zombie' : p.state})`;
}

/** A PTY the smoke run started: its `script` and the terminal session its command leads. */
export interface TrackedPty {
  readonly scriptPid: number;
  /** Start time of `script`: members older than it are another process that got a reused pid. */
  readonly scriptStart: number;
  /** The PTY session id (pid of its leader), or null when the command ended before it was seen. */
  readonly sessionId: number | null;
}

/** Finds the PTY session `script` made (its child that called setsid) while it is there to be found. */
export function trackPty(scriptPid: number): TrackedPty {
  const scriptStart = readStat(scriptPid)?.startTime ?? 0;
  const leader = childrenOf(scriptPid).find((c) => c.sessionId === c.pid);
  return { scriptPid, scriptStart, sessionId: leader?.pid ?? null };
}

/** Live processes still in the PTY's terminal session. */
export function survivorsOf(pty: TrackedPty): ProcStat[] {
  return pty.sessionId === null ? [] : sessionMembers(pty.sessionId, pty.scriptStart);
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
