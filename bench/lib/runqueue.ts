import { readdirSync, readFileSync } from 'node:fs';

/**
 * Time spent runnable but waiting for a CPU, in ns, summed over this host's main thread and the given processes
 * (their main threads): the second field of /proc/…/schedstat. On a shared 2-core machine a late answer is often
 * just that — the host, `script` or the program queued behind other work — and the loop suite says so per sample
 * rather than guessing. A process already gone counts 0.
 */
export function runqueueWaitNs(pids: readonly number[]): number {
  let total = waitOf('/proc/thread-self/schedstat');
  for (const pid of pids) total += waitOf(`/proc/${pid}/schedstat`);
  return total;
}

/**
 * CPU time, in ns, of this process's threads other than the main one: V8's or JavaScriptCore's collector and
 * compiler threads (and libuv's pool). On two cores, while they run, the host's main thread, `script` or the
 * program waits: the loop suite tells its answers apart by it. A thread that ended since an earlier reading takes
 * its time with it.
 */
export function helperThreadsRunNs(): number {
  let total = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    if (Number(tid) !== process.pid) total += fieldOf(`/proc/self/task/${tid}/schedstat`, 0);
  }
  return total;
}

/**
 * CPU time of this host's main thread, in ns. An answer late with no waiting for a CPU and no other thread running
 * leaves the main thread's own work, or time it spent that no thread of the guest shows (the hypervisor's): this
 * tells which.
 */
export function mainThreadRunNs(): number {
  return fieldOf('/proc/thread-self/schedstat', 0);
}

/**
 * Minor page faults of this whole process (the tenth field of /proc/self/stat): on a VM that hands freed memory back
 * to its host, each is microseconds of the faulting thread's own time (docs/perf-journal.md, sixteenth session).
 */
export function processMinorFaults(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which may hold spaces: the tenth field overall is the eighth after it.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7] ?? 0);
  } catch {
    return 0;
  }
}

/** What the host and an interaction's processes did while it ran, as the loop suite's outcomes report it. */
export interface HostUse {
  /** The host's main thread, `script` and the program waiting for a CPU (runqueueWaitNs), ms. */
  readonly cpuWaitMs: number;
  /** The host's other threads running (helperThreadsRunNs), ms. */
  readonly helperCpuMs: number;
  /** The host's main thread running (mainThreadRunNs), ms. */
  readonly mainCpuMs: number;
  /** The host process's minor page faults (processMinorFaults). */
  readonly faults: number;
}

/** A reading now; `done()` gives what was used since, for the host and `pids` (script and the program). */
export function hostUseSince(pids: readonly number[]): { done(): HostUse } {
  const wait = runqueueWaitNs(pids);
  const helpers = helperThreadsRunNs();
  const main = mainThreadRunNs();
  const faults = processMinorFaults();
  return {
    done: () => ({
      cpuWaitMs: (runqueueWaitNs(pids) - wait) / 1e6,
      helperCpuMs: (helperThreadsRunNs() - helpers) / 1e6,
      mainCpuMs: (mainThreadRunNs() - main) / 1e6,
      faults: processMinorFaults() - faults,
    }),
  };
}

function waitOf(file: string): number {
  return fieldOf(file, 1);
}

function fieldOf(file: string, field: number): number {
  try {
    return Number(readFileSync(file, 'utf8').split(' ')[field] ?? 0);
  } catch {
    return 0;
  }
}

/** The pids of a process's children (first thread's list; enough for script, which has one child). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((s) => s !== '')
      .map(Number);
  } catch {
    return [];
  }
}
