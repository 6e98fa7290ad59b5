/**
 * The one leftover-process checker of the tests, the smoke run, the bench and the e2e suite: what this process
 * holds (children, descriptors), and what a PTY really is in /proc and whether any of it outlived the PTY.
 *
 * A PTY is `script` (the pid pty_spawn reports) and a terminal session: script's child called setsid() and exec'd
 * the command, so the command leads the session and its pid is the session id, `terminalSid`; every process of
 * the terminal (the command, its children, a shell's jobs) is a member. Processes are named by pid AND start
 * time, so a reused pid is never taken for a survivor.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { orphanGuard } from '../engine/orphan-guard.js';
import { allProcesses, childrenOf as childStatsOf, type ProcStat, readStat, sessionMembers } from '../engine/procfs.js';
import { DEFAULT_POLL_MS, sleep } from './waits.js';

// ── This process ────────────────────────────────────────────────────────────────────────────

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
 * The descriptors open now that `before` (an openDescriptors() reading) did not have open on the same file, as
 * "fd target": what was opened since and is still open. One that was open then and is closed now is not counted.
 */
export function descriptorsOpenedSince(before: ReadonlyMap<string, string>): string[] {
  return [...openDescriptors()].filter(([fd, target]) => before.get(fd) !== target).map(([fd, t]) => `${fd} ${t}`);
}

/** The sockets this process holds, as /proc names them (`socket:[inode]`). */
export function socketsHeld(): Set<string> {
  return new Set([...openDescriptors().values()].filter((target) => target.startsWith('socket:')));
}

/** The open flags of `pid`'s descriptor `fd`, from its fdinfo (octal there); throws if it has none to read. */
export function openFlagsOf(pid: number | 'self', fd: number): number {
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
  if (flags === undefined) throw new Error(`no flags in /proc/${pid}/fdinfo/${fd}`);
  return Number.parseInt(flags, 8);
}

export function openFdCount(): number {
  return readdirSync('/proc/self/fd').length;
}

export function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

export type ChildProcess = ProcStat & { readonly comm: string };

/**
 * Direct children of this process, zombies included (a zombie child is a leak: nobody reaped it). The orphan
 * guard is left out unless asked for: it belongs to the plugin, lives while PTYs do (and a while after, for the
 * next) and exits on its own (test/engine/orphan-guard.test.ts proves it), so its coming and going is not a PTY
 * started or left behind.
 */
export function childrenOfSelf(options: { readonly withOrphanGuard?: boolean } = {}): ChildProcess[] {
  // By pid, not by command line: an exiting guard is a zombie, whose command line is empty.
  return allProcesses()
    .filter((p) => p.ppid === process.pid && (options.withOrphanGuard === true || !orphanGuard.pids.has(p.pid)))
    .map((p) => ({ ...p, comm: commOf(p.pid) }));
}

/** pids of the live (non-zombie) children of this process, the orphan guard left out. */
export function liveChildren(): number[] {
  return childrenOfSelf()
    .filter((c) => c.state !== 'Z')
    .map((c) => c.pid);
}

/** What the smoke process holds before a scenario runs: it must hold no more afterwards. */
export interface Holdings {
  /** Open descriptors of this process: fd number → what it points at. */
  readonly fds: ReadonlyMap<string, string>;
  /** pids of this process's direct children. */
  readonly children: ReadonlySet<number>;
}

export function holdings(): Holdings {
  return { fds: openDescriptors(), children: new Set(childrenOfSelf().map((p) => p.pid)) };
}

// ── Any process ─────────────────────────────────────────────────────────────────────────────

export function isRunning(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** "1234 sleep (S)" */
export function describeProcess(p: ProcStat): string {
  return `${p.pid} ${commOf(p.pid)} (${p.state === 'Z' ? 'zombie' : p.state})`;
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export interface ProcRef {
  readonly pid: number;
  readonly startTime: number;
  readonly comm: string;
  readonly cmdline: string;
}

function ref(stat: ProcStat): ProcRef {
  const read = (f: string): string => {
    try {
      return readFileSync(`/proc/${stat.pid}/${f}`, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    pid: stat.pid,
    startTime: stat.startTime,
    comm: read('comm').trim(),
    cmdline: read('cmdline').split('\0').join(' ').trim(),
  };
}

export function isAlive(p: Pick<ProcRef, 'pid' | 'startTime'>): boolean {
  const stat = readStat(p.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === p.startTime;
}

/** Live processes whose command line contains `token` (a unique word a test put into a command). */
export function processesWithToken(token: string): ProcRef[] {
  return allProcesses()
    .filter((p) => p.state !== 'Z' && p.pid !== process.pid)
    .map(ref)
    .filter((p) => p.cmdline.includes(token));
}

/** Live pids whose command line holds `marker`, optionally only those running program `comm`. */
export function pidsWithMarker(marker: string, comm?: string): number[] {
  return processesWithToken(marker)
    .filter((p) => comm === undefined || p.comm === comm)
    .map((p) => p.pid);
}

/** Live children of `pid` (e.g. the helper processes the plugin started inside `opencode serve`). */
export function childrenOf(pid: number): ProcRef[] {
  return allProcesses()
    .filter((p) => p.ppid === pid && p.state !== 'Z')
    .map(ref);
}

// ── A PTY ───────────────────────────────────────────────────────────────────────────────────

/** A PTY seen while it was there to be seen: its `script` and the terminal session its command leads. */
export interface TrackedPty {
  readonly scriptPid: number;
  /** Start time of `script`: members older than it are another process that got a reused pid. */
  readonly scriptStart: number;
  /** The terminal's Unix session id (the pid of its leader), or null when the command ended before it was seen. */
  readonly terminalSid: number | null;
}

/** Finds the terminal session `script` made (its child that called setsid); `script` may be gone already. */
export function trackPty(scriptPid: number): TrackedPty {
  const scriptStart = readStat(scriptPid)?.startTime ?? 0;
  const leader = childStatsOf(scriptPid).find((c) => c.sessionId === c.pid);
  return { scriptPid, scriptStart, terminalSid: leader?.pid ?? null };
}

/** Live processes still in the PTY's terminal session. */
export function survivorsOf(pty: TrackedPty): ProcStat[] {
  return pty.terminalSid === null ? [] : sessionMembers(pty.terminalSid, pty.scriptStart);
}

/** Every process of a running PTY, read from /proc now. */
export interface PtyProcesses {
  /** `script` (the pid pty_spawn reported). */
  readonly script: ProcRef;
  /** The terminal's session id (= the command's pid), null if script had no session-leader child. */
  readonly terminalSid: number | null;
  /** Live members of the terminal session when the snapshot was taken (the command first). */
  readonly members: ProcRef[];
}

/** The processes of the running PTY whose `script` has `scriptPid`; throws if script is not running. */
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
  return { script: ref(script), terminalSid: leader?.pid ?? null, members: members.map(ref) };
}

/**
 * Everything of these PTYs still alive: the snapshots' processes (same pid and start time, `script` included),
 * plus any live member of their terminal sessions started since (a loop's next `sleep`).
 */
export function survivors(ptys: readonly PtyProcesses[]): ProcRef[] {
  const out = new Map<number, ProcRef>();
  for (const pty of ptys) {
    for (const p of [pty.script, ...pty.members]) if (isAlive(p)) out.set(p.pid, p);
    const leader = pty.members[0];
    if (pty.terminalSid !== null && leader) {
      for (const p of sessionMembers(pty.terminalSid, leader.startTime)) out.set(p.pid, ref(p));
    }
  }
  return [...out.values()];
}

/** Polls until none of `ptys` has a live process; resolves with the time it took, rejects naming the survivors. */
export async function waitUntilGone(
  ptys: readonly PtyProcesses[],
  timeoutMs: number,
  stepMs = DEFAULT_POLL_MS,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    const left = survivors(ptys);
    if (left.length === 0) return Date.now() - start;
    if (Date.now() - start > timeoutMs) {
      const named = left.map((p) => `${p.pid} ${p.comm} (${p.cmdline})`).join('; ');
      throw new Error(`still alive after ${timeoutMs} ms: ${named}`);
    }
    await sleep(stepMs);
  }
}
