import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SmokeBackend } from './backends.js';
import { eventually } from './expect.js';
import { FakeOpenCode, type AskPolicy, type FakeSession } from './fake-host.js';
import { survivorsOf, trackPty, type TrackedPty } from './processes.js';
import { WAIT_MS } from './timing.js';

/** What pty_spawn, pty_list and pty_kill report about a PTY (the fields the scenarios look at). */
export interface PtyView {
  readonly id: string;
  readonly status: 'starting' | 'running' | 'lingering' | 'exited' | 'killed' | 'timeout';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly pid: number | null;
  readonly timedOut: boolean;
  readonly command: string;
  readonly args: readonly string[];
  readonly lineCount: number;
  readonly removed?: boolean;
}

export interface LineView {
  readonly line: number;
  readonly text: string;
  readonly cutFrom?: number;
}

/** What pty_read returns, for lines, raw and pattern reads alike. */
export interface ReadView {
  readonly id: string;
  readonly status: PtyView['status'];
  readonly exitCode: number | null;
  readonly totalLines: number;
  readonly firstLine: number;
  readonly droppedLines: number;
  readonly retainedLines: number;
  readonly offset?: number;
  readonly returned?: number;
  readonly lines?: readonly LineView[];
  readonly hasMore?: boolean;
  readonly nextOffset?: number | null;
  readonly text?: string;
  readonly rawLines?: number;
  readonly matches?: number;
}

export interface ListView {
  readonly ptys: readonly PtyView[];
}

/**
 * Everything one scenario run uses: a temp project directory, fake OpenCode hosts running the backend's
 * plugin, and every PTY they started (so that the run can prove nothing of them is left).
 */
export class SmokeHarness {
  readonly projectDir: string;
  private readonly hosts: FakeOpenCode[] = [];
  private readonly ptys = new Map<number, TrackedPty>();

  constructor(readonly backend: SmokeBackend) {
    this.projectDir = realpathSync(mkdtempSync(join(tmpdir(), 'local-pty-smoke-')));
  }

  /** Loads the plugin into a new fake OpenCode, with the project directory as its directory. */
  async host(): Promise<FakeOpenCode> {
    const host = await FakeOpenCode.start(this.backend, this.projectDir, (pid) => this.track(pid));
    this.hosts.push(host);
    return host;
  }

  /** A fresh host and one session on it: the common start of a scenario. */
  async session(id: string, policy: AskPolicy = 'allow'): Promise<{ host: FakeOpenCode; session: FakeSession }> {
    const host = await this.host();
    return { host, session: host.session(id, policy) };
  }

  track(scriptPid: number): TrackedPty {
    let pty = this.ptys.get(scriptPid);
    if (pty === undefined || pty.sessionId === null) {
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
  session: FakeSession,
  id: string,
  ok: (lines: readonly LineView[], read: ReadView) => boolean,
  expected: string,
  timeoutMs = WAIT_MS,
): Promise<ReadView> {
  return eventually(
    () => session.call<ReadView>('pty_read', { id, limit: 2_000 }),
    (r) => ok(r.lines ?? [], r),
    expected,
    `reading ${id}`,
    timeoutMs,
  );
}

export const texts = (lines: readonly LineView[]) => lines.map((l) => l.text);

/** Waits until the PTY has ended (any status but starting/running) and returns how pty_list shows it. */
export async function ended(session: FakeSession, id: string, timeoutMs = WAIT_MS): Promise<PtyView> {
  const list = await eventually(
    () => session.call<ListView>('pty_list', {}),
    (l) => l.ptys.some((p) => p.id === id && p.status !== 'running' && p.status !== 'starting'),
    `${id} to have ended`,
    `waiting for ${id} to end`,
    timeoutMs,
  );
  return list.ptys.find((p) => p.id === id)!;
}

export async function statusOf(session: FakeSession, id: string): Promise<PtyView['status'] | 'absent'> {
  const list = await session.call<ListView>('pty_list', {});
  return list.ptys.find((p) => p.id === id)?.status ?? 'absent';
}
