/**
 * Every process the e2e harness starts goes through here, so it can always be ended (even when a test fails):
 * each is spawned in its own process group (`detached: true`) and tracked until it exits; `killAllTracked()`
 * (called from `afterAll` by `useHarnessCleanup()`) TERMs then KILLs every group still alive.
 *
 * Each harness also puts a marker variable (`OPENCODE_E2E_MARK=<id>`) into the environment of everything it
 * starts. Environment survives `setsid`/`script`, so `findMarkedProcesses(id)` finds leftovers even when they
 * left the process group (e.g. a PTY child of the plugin under test).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';

export const MARK_VAR = 'OPENCODE_E2E_MARK';

/** Grace period between SIGTERM and SIGKILL when ending a process group. */
export const DEFAULT_KILL_GRACE_MS = 3_000;

export interface Tracked {
  child: ChildProcess;
  label: string;
  startedAt: number;
  /** Resolves once the process has exited (never rejects). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isAlive(): boolean;
}

const live = new Set<Tracked>();

export function spawnTracked(cmd: string, args: string[], opts: SpawnOptions & { label: string }): Tracked {
  const { label, ...spawnOpts } = opts;
  const child = spawn(cmd, args, { ...spawnOpts, detached: true });
  let alive = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      live.delete(tracked);
      resolve({ code, signal });
    });
    child.once('error', () => {
      alive = false;
      live.delete(tracked);
      resolve({ code: null, signal: null });
    });
  });
  const tracked: Tracked = { child, label, startedAt: Date.now(), exited, isAlive: () => alive };
  live.add(tracked);
  return tracked;
}

function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Ends one tracked process (and its process group): `signal` first, SIGKILL after `graceMs`.
 * Resolves when the leader has exited; `forced` tells whether SIGKILL was needed.
 */
export async function endTracked(
  t: Tracked,
  { signal = 'SIGTERM', graceMs = DEFAULT_KILL_GRACE_MS }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; durationMs: number; forced: boolean }> {
  const start = Date.now();
  if (!t.isAlive()) return { ...(await t.exited), durationMs: 0, forced: false };
  signalGroup(t.child.pid, signal);
  let forced = false;
  const timer = setTimeout(() => {
    forced = true;
    signalGroup(t.child.pid, 'SIGKILL');
  }, graceMs);
  const res = await t.exited;
  clearTimeout(timer);
  // The leader is gone; make sure nothing of its group lingers.
  signalGroup(t.child.pid, 'SIGKILL');
  return { ...res, durationMs: Date.now() - start, forced };
}

/** Ends every tracked process still alive. Safe to call many times. */
export async function killAllTracked(graceMs = DEFAULT_KILL_GRACE_MS): Promise<string[]> {
  const ended: string[] = [];
  await Promise.all(
    [...live].map(async (t) => {
      ended.push(`${t.label} (pid ${t.child.pid})`);
      await endTracked(t, { graceMs });
    }),
  );
  return ended;
}

export function trackedCount(): number {
  return live.size;
}

/** Last resort if the test process exits without afterAll having run. */
process.once('exit', () => {
  for (const t of live) signalGroup(t.child.pid, 'SIGKILL');
});

export interface MarkedProcess {
  pid: number;
  cmdline: string;
}

/**
 * Processes (other than this one) whose environment carries `OPENCODE_E2E_MARK=<mark>`, or, with `cwdRoot`,
 * whose working directory is `cwdRoot` or inside it (a PTY's processes get a fixed environment without the
 * marker, but run in a directory of the harness's temp root). Zombies are skipped. Linux only.
 */
export function findMarkedProcesses(mark: string, cwdRoot?: string): MarkedProcess[] {
  const needle = `${MARK_VAR}=${mark}`;
  const root = cwdRoot === undefined ? undefined : realpathOr(cwdRoot);
  const out: MarkedProcess[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      let ours = env.split('\0').includes(needle);
      if (!ours && root !== undefined) {
        const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
        ours = cwd === root || cwd.startsWith(`${root}/`);
      }
      if (!ours) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // zombie: already dead, waiting to be reaped
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      out.push({ pid, cmdline });
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return out;
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** SIGKILLs every process carrying the marker (or running inside `cwdRoot`); returns what it killed. */
export function killMarkedProcesses(mark: string, cwdRoot?: string): MarkedProcess[] {
  const found = findMarkedProcesses(mark, cwdRoot);
  for (const p of found) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return found;
}
