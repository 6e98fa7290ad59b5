import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinesRead, ListResult, PtyDescription, PtyStatus, ReadLine } from '../protocol/tool-results.js';
import type { SmokeBackend } from './backends.js';
import { eventually } from './expect.js';
import { type AskPolicy, SmokeHost, type SmokeSession } from './smoke-host.js';
import { survivorsOf, trackPty, type TrackedPty } from '../testkit/processes.js';
import { WAIT_MS } from './timing.js';

/**
 * Everything one scenario run uses: a temp project directory, fake OpenCode hosts running the backend's
 * plugin, and every PTY they started (so that the run can prove nothing of them is left).
 */
export class SmokeHarness {
  readonly projectDir: string;
  private readonly hosts: SmokeHost[] = [];
  private readonly ptys = new Map<number, TrackedPty>();

  constructor(readonly backend: SmokeBackend) {
    this.projectDir = realpathSync(mkdtempSync(join(tmpdir(), 'local-pty-smoke-')));
  }

  /** Loads the plugin into a new fake OpenCode, with the project directory as its directory. */
  async host(): Promise<SmokeHost> {
    const host = await SmokeHost.start(this.backend, this.projectDir, (pid) => this.track(pid));
    this.hosts.push(host);
    return host;
  }

  /** A fresh host and one session on it: the common start of a scenario. */
  async session(id: string, policy: AskPolicy = 'allow'): Promise<{ host: SmokeHost; session: SmokeSession }> {
    const host = await this.host();
    return { host, session: host.session(id, policy) };
  }

  track(scriptPid: number): TrackedPty {
    let pty = this.ptys.get(scriptPid);
    if (pty === undefined || pty.terminalSid === null) {
      pty = trackPty(scriptPid);
      this.ptys.set(scriptPid, pty);
    }
    return pty;
  }

  tracked(): TrackedPty[] {
    return [...this.ptys.values()];
  }

  /** Live processes left in the terminal sessions of every PTY this run started. */
  survivors() {
    return this.tracked().flatMap((p) => survivorsOf(p));
  }

  /** Disposes every host (as OpenCode does on shutdown) and removes the project directory. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.hosts.map((h) => h.dispose()));
    rmSync(this.projectDir, { recursive: true, force: true });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Reads lines (offset 0, the most allowed) until `ok` holds for them. */
export function readUntil(
  session: SmokeSession,
  id: string,
  ok: (lines: readonly ReadLine[], read: LinesRead) => boolean,
  expected: string,
  timeoutMs = WAIT_MS,
): Promise<LinesRead> {
  return eventually(
    () => session.call<LinesRead>('pty_read', { id, limit: 2_000 }),
    (r) => ok(r.lines, r),
    expected,
    `reading ${id}`,
    timeoutMs,
  );
}

export const texts = (lines: readonly ReadLine[]) => lines.map((l) => l.text);

/** Waits until the PTY has ended (any status but starting/running) and returns how pty_list shows it. */
export async function ended(session: SmokeSession, id: string, timeoutMs = WAIT_MS): Promise<PtyDescription> {
  const list = await eventually(
    () => session.call<ListResult>('pty_list', {}),
    (l) => l.ptys.some((p) => p.id === id && p.status !== 'running' && p.status !== 'starting'),
    `${id} to have ended`,
    `waiting for ${id} to end`,
    timeoutMs,
  );
  return list.ptys.find((p) => p.id === id)!;
}

export async function statusOf(session: SmokeSession, id: string): Promise<PtyStatus | 'absent'> {
  const list = await session.call<ListResult>('pty_list', {});
  return list.ptys.find((p) => p.id === id)?.status ?? 'absent';
}
