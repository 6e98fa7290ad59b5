import { defer, map, type Observable, shareReplay, timer } from 'rxjs';
import { createV1Plugin, type V1Hooks, type V1PluginInput } from '../hosts/opencode-v1.js';
import { LocalPtyPlugin } from '../index.js';
import { sessionMembers, readStat } from '../engine/procfs.js';
import { MAX_SESSIONS, MAX_SESSIONS_PER_OWNER, TERMINATE_GRACE_MS } from '../limits.js';
import { type PtyEvent, startedEvent } from '../streams/pty-events.js';
import { ptyProcess$, type PtyHandle } from '../streams/pty-process.js';
import type { TerminationReport } from '../streams/session-report.js';

/** What the smoke run loads as "the plugin": the real one, or one broken on purpose to prove a scenario can fail. */
export interface SmokeBackend {
  readonly name: string;
  readonly summary: string;
  create(input: V1PluginInput): Promise<V1Hooks>;
}

/** The shipped plugin, exactly as OpenCode loads it. */
export const realBackend: SmokeBackend = {
  name: 'real',
  summary: 'the plugin as shipped (LocalPtyPlugin)',
  create: (input) => LocalPtyPlugin(input),
};

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

/**
 * The termination a naive PTY wrapper does: TERM (and CONT) to the session, wait the grace period, then
 * SIGKILL `script` only. The KILL sweep of the session is skipped, so a command that ignores TERM and HUP
 * outlives its PTY (reparented to pid 1).
 */
function terminateWithoutKill(handle: PtyHandle): Observable<TerminationReport> {
  return defer(() => {
    const scriptStart = readStat(handle.pid)?.startTime ?? 0;
    const members =
      handle.terminalSid === null ? [] : sessionMembers(handle.terminalSid, scriptStart).map((p) => p.pid);
    for (const pid of members) {
      signalQuietly(pid, 'SIGTERM');
      signalQuietly(pid, 'SIGCONT');
    }
    return timer(TERMINATE_GRACE_MS).pipe(
      map((): TerminationReport => {
        signalQuietly(handle.pid, 'SIGKILL');
        return { termed: members.length, escalated: false, scriptKilled: true, survivors: { count: 0, listed: [] } };
      }),
    );
  }).pipe(shareReplay({ bufferSize: 1, refCount: false }));
}

function withoutKill(handle: PtyHandle): PtyHandle {
  const terminate$ = terminateWithoutKill(handle);
  return {
    pid: handle.pid,
    get terminalSid() {
      return handle.terminalSid;
    },
    write: (bytes) => handle.write(bytes),
    terminal: () => handle.terminal(),
    terminate: () => terminate$,
  };
}

/** The real PTY process stream, with its termination swapped for `terminateWithoutKill`. */
const spawnWithoutKill: typeof ptyProcess$ = (spec, deps) =>
  ptyProcess$(spec, deps).pipe(
    map((event): PtyEvent => (event.kind === 'started' ? startedEvent(withoutKill(event.handle)) : event)),
  );

/** Backends broken on purpose: each must make at least one scenario fail (test/smoke/smoke-can-fail.test.ts). */
export const brokenBackends: Readonly<Record<string, SmokeBackend>> = {
  'no-kill': {
    name: 'no-kill',
    summary: 'termination skips the KILL step (TERM, grace, then SIGKILL script only)',
    create: (input) => createV1Plugin(input, { spawn: spawnWithoutKill }),
  },
  'no-reservations': {
    name: 'no-reservations',
    summary: `the reservation check is disabled (no ${MAX_SESSIONS_PER_OWNER}-per-session or ${MAX_SESSIONS}-in-all limit)`,
    create: (input) =>
      createV1Plugin(input, { limits: { maxSessions: Number.MAX_SAFE_INTEGER, maxPerOwner: Number.MAX_SAFE_INTEGER } }),
  },
};

export const BACKENDS: Readonly<Record<string, SmokeBackend>> = { real: realBackend, ...brokenBackends };
