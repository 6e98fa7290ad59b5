import { readFileSync } from 'node:fs';

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

function waitOf(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8').split(' ')[1] ?? 0);
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
