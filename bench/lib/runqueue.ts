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
