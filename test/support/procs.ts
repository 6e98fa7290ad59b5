import { readdirSync, readFileSync } from 'node:fs';
import { allProcesses, readStat } from '../../src/engine/procfs.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function isRunning(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

export async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000, stepMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(stepMs);
  }
}

export function openFdCount(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Direct children of this process, zombies included (a zombie child is a leak: nobody reaped it). */
export function childrenOfHost(): Array<{ pid: number; state: string; comm: string }> {
  return allProcesses()
    .filter((p) => p.ppid === process.pid)
    .map((p) => ({ pid: p.pid, state: p.state, comm: commOf(p.pid) }));
}

export function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/**
 * Live pids whose command line contains `marker` (a unique token the test put into the command), optionally
 * only those running program `comm` (the wrapping shells and script carry the marker in their cmdline too).
 */
export function pidsWithMarker(marker: string, comm?: string): number[] {
  return allProcesses()
    .filter((p) => p.state !== 'Z')
    .filter((p) => comm === undefined || commOf(p.pid) === comm)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}
