import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly sessionId: number;
  /** The controlling terminal's device number (proc(5) tty_nr, the kernel's dev_t encoding); 0 when none. */
  readonly ttyNr: number;
  /** Clock ticks after boot: with the pid, it names a process even when the pid is reused. */
  readonly startTime: number;
}

/**
 * The fields of /proc/PID/stat after the command name: the name may hold spaces and parentheses, so they count from
 * the last ')'. `state` is field 3; `at(n)` is numeric field n as proc(5) numbers them (ppid 4, pgrp 5, session 6,
 * tty_nr 7, starttime 22, exit_code 52).
 */
function statFields(content: string): { state: string; at: (n: number) => number } | undefined {
  const close = content.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = content.slice(close + 2).split(' ');
  const state = fields[0];
  return state === undefined ? undefined : { state, at: (n) => Number(fields[n - 3]) };
}

/** Parses /proc/PID/stat. */
export function parseStat(pid: number, content: string): ProcStat | undefined {
  const fields = statFields(content);
  if (fields === undefined) return undefined;
  const { state, at } = fields;
  return { pid, state, ppid: at(4), pgrp: at(5), sessionId: at(6), ttyNr: at(7), startTime: at(22) };
}

/**
 * The pid the kernel handed out last in this pid namespace (the last field of /proc/loadavg), or undefined when it
 * cannot be read. Pids are handed out in turn, wrapping at `pidMax()`: every process made after a reading has a pid
 * after it, so a scan can find what was made while it ran (see session-scanner.ts).
 */
export function lastPid(): number | undefined {
  try {
    const loadavg = readFileSync('/proc/loadavg', 'latin1');
    const last = Number(loadavg.slice(loadavg.lastIndexOf(' ') + 1));
    return Number.isSafeInteger(last) && last > 0 ? last : undefined;
  } catch {
    return undefined;
  }
}

let knownPidMax: number | undefined;

/** The pid after which the kernel wraps (/proc/sys/kernel/pid_max, read once); Linux's default where unreadable. */
export function pidMax(): number {
  if (knownPidMax === undefined) {
    try {
      knownPidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1'));
    } catch {
      knownPidMax = Number.NaN;
    }
    if (!Number.isSafeInteger(knownPidMax) || knownPidMax < 2) knownPidMax = LINUX_DEFAULT_PID_MAX;
  }
  return knownPidMax;
}

const LINUX_DEFAULT_PID_MAX = 32_768;

/**
 * Whether `pid` is a process and not one of a process's other threads: a thread's id comes from the same counter,
 * and /proc/TID/stat reads as if it were a process (it is not listed, but it can be read).
 */
export function isProcess(pid: number): boolean {
  const status = readProcFile(pid, 'status');
  return status !== undefined && Number(/^Tgid:\s*(\d+)/m.exec(status)?.[1]) === pid;
}

/** undefined when the process is gone (ENOENT/ESRCH are the expected race, nothing else is swallowed). */
export function readStat(pid: number): ProcStat | undefined {
  const content = readProcFile(pid, 'stat');
  return content === undefined ? undefined : parseStat(pid, content);
}

function readProcFile(pid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw err;
  }
}

/** proc(5) reports utime and stime in USER_HZ ticks, 100 per second on every Linux architecture. */
const MS_PER_USER_HZ_TICK = 10;

/**
 * The CPU time a process has had, in ms: the first field of /proc/PID/schedstat (ns, exact), or utime + stime from
 * its stat (10 ms ticks) where the kernel keeps no schedstat. undefined when the process is gone.
 */
export function cpuTimeMs(pid: number): number | undefined {
  const schedstat = readProcFile(pid, 'schedstat');
  if (schedstat !== undefined) {
    const onCpuNs = Number(schedstat.slice(0, schedstat.indexOf(' ')));
    if (Number.isFinite(onCpuNs)) return onCpuNs / 1e6;
  }
  return statCpuTimeMs(readProcFile(pid, 'stat') ?? '');
}

/** utime + stime of a /proc stat file's `content` (a process's, or one thread's under task/), in ms: 10 ms ticks. */
export function statCpuTimeMs(content: string): number | undefined {
  const fields = statFields(content);
  return fields === undefined ? undefined : (fields.at(14) + fields.at(15)) * MS_PER_USER_HZ_TICK;
}

/** A zombie: its parent has not reaped it yet, and /proc still holds the status the parent's wait would get. */
export interface Zombie {
  readonly ppid: number;
  readonly startTime: number;
  /** As waitpid(2) reports it (proc(5) field 52, exit_code). */
  readonly waitStatus: number;
}

/** undefined when the process is gone or not a zombie. */
export function readZombie(pid: number): Zombie | undefined {
  const content = readProcFile(pid, 'stat');
  const fields = content === undefined ? undefined : statFields(content);
  if (fields?.state !== 'Z' || !Number.isInteger(fields.at(52))) return undefined;
  const { at } = fields;
  return { ppid: at(4), startTime: at(22), waitStatus: at(52) };
}

/** Whether a signal is pending for the process, for one thread of it (SigPnd) or for all (ShdPnd); undefined if gone. */
export function isSignalPending(pid: number, signal: number): boolean | undefined {
  const status = readProcFile(pid, 'status');
  if (status === undefined) return undefined;
  const bit = 1n << BigInt(signal - 1);
  for (const [, mask] of status.matchAll(PENDING_SIGNAL_MASKS)) if ((BigInt(`0x${mask}`) & bit) !== 0n) return true;
  return false;
}

const PENDING_SIGNAL_MASKS = /^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm;

/**
 * The kernel function a sleeping process waits in (/proc/PID/wchan): `poll_schedule_timeout.constprop.0` in
 * poll(2), `sock_alloc_send_pskb` for a writer blocked on a full socket (Node's stdio pipes are socket pairs).
 * undefined when the process is gone, running, or the kernel hides it from us (it then reads "0").
 */
export function readWaitChannel(pid: number): string | undefined {
  const channel = readProcFile(pid, 'wchan');
  return channel === undefined || channel === '' || channel === '0' ? undefined : channel;
}

export function allProcesses(): ProcStat[] {
  const result: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = readStat(Number(name));
    if (stat) result.push(stat);
  }
  return result;
}

/** How many following pids are probed before a full /proc scan: a fresh child usually got one of them. */
const NEAR_PID_PROBES = 8;

/**
 * The children of `ppid` as the kernel lists them, per thread, in /proc/PID/task/TID/children: one read per thread
 * instead of a stat read per process on the machine. Undefined where the kernel has no such file
 * (CONFIG_PROC_CHILDREN is off); [] when the process is gone.
 */
function kernelChildren(ppid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${ppid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${ppid}/task/${tid}/children`, 'utf8');
    } catch (err) {
      // The file itself missing while the task is listed: this kernel does not have it.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(`/proc/${ppid}/task/${tid}`)) return undefined;
      continue;
    }
    for (const pid of text.split(' ')) if (pid.trim() !== '') children.push(Number(pid));
  }
  return children;
}

// Where the kernel lists children (kernelChildren), that list is read; where it lists none (proc(5): the list is
// exact only while the children are stopped, one being forked can be missing) or has no list, they are found by
// ppid, near pids first: a full scan costs milliseconds of blocked event loop on a busy machine, and `nearOnly`
// skips it.
export function childrenOf(ppid: number, nearOnly = false): ProcStat[] {
  const children: ProcStat[] = [];
  for (const pid of kernelChildren(ppid) ?? []) {
    const stat = readStat(pid);
    if (stat?.ppid === ppid) children.push(stat);
  }
  if (children.length > 0) return children;
  const near: ProcStat[] = [];
  for (let pid = ppid + 1; pid <= ppid + NEAR_PID_PROBES; pid++) {
    const stat = readStat(pid);
    if (stat?.ppid === ppid) near.push(stat);
  }
  if (near.length > 0 || nearOnly) return near;
  return allProcesses().filter((p) => p.ppid === ppid);
}

/** Live (non-zombie) members of a session that started no earlier than `notBefore` (pid-reuse guard). */
export function sessionMembers(sessionId: number, notBefore: number): ProcStat[] {
  return allProcesses().filter((p) => p.sessionId === sessionId && p.state !== 'Z' && p.startTime >= notBefore);
}

/** The terminal device of a process (e.g. /dev/pts/3), read from its stdin. */
export function terminalOf(pid: number): string | undefined {
  try {
    const target = readlinkSync(`/proc/${pid}/fd/0`);
    return target.startsWith('/dev/pts/') ? target : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command line of a process for a status list: its argv joined by spaces, cut at `maxChars`, or its
 * kernel name (comm) when the argv is empty or unreadable; undefined when the process is gone.
 */
export function commandLineOf(pid: number, maxChars: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
    if (text.length === 0) text = `[${readFileSync(`/proc/${pid}/comm`, 'utf8').trim()}]`;
  } catch {
    return undefined;
  }
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
