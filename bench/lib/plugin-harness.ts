import { match } from 'ts-pattern';
import type { ExitEnvelope, LinesRead, SpawnResult } from '../../src/protocol/tool-results.js';
import { V1HostFixture } from '../../src/testkit/fake-v1-host.js';
import { monotonicNs } from './monotonic.js';

/**
 * The real plugin (`LocalPtyPlugin(input)` → hooks) in the testkit's fake OpenCode 1.18 host, driven as OpenCode
 * would drive it: every tool call goes through `hooks.tool[name].execute` (zod parsing, the core, the JSON
 * envelope); the host allows every permission ask and catches exit notifications, which is how a PTY's end is
 * observed.
 */
export class PluginHarness {
  private readonly exited = new Map<string, ExitEnvelope>();
  private readonly waiters = new Map<string, (env: ExitEnvelope) => void>();

  private constructor(readonly host: V1HostFixture) {
    // The bench sets no watch rules: a pty.match cannot come, and would not end a PTY.
    host.onNotification = (record) =>
      match(record.envelope)
        .with({ type: 'pty.exit' }, (env) => this.onExit(env))
        .with({ type: 'pty.match' }, () => undefined)
        .exhaustive();
  }

  static async open(): Promise<PluginHarness> {
    // No session history, as before: a notification is queued, not a new turn (the bench measures the plugin).
    return new PluginHarness(await V1HostFixture.create({ defaultMessages: [] }));
  }

  get projectDir(): string {
    return this.host.projectDir;
  }

  /** Warnings and errors the plugin logged. */
  get errors(): string[] {
    return this.host.logs
      .filter((l) => l.level === 'error' || l.level === 'warn')
      .map((l) => `${l.level}: ${l.message}`);
  }

  private onExit(env: ExitEnvelope): void {
    const waiter = this.waiters.get(env.id);
    if (waiter) {
      this.waiters.delete(env.id);
      waiter(env);
    } else {
      this.exited.set(env.id, env);
    }
  }

  async call<T>(tool: string, args: Record<string, unknown>, sessionID: string): Promise<T> {
    return (await this.timedCall<T>(tool, args, sessionID)).value;
  }

  /**
   * A tool call timed from `execute` to the envelope string it returns (parsing it back is not timed). The two
   * instants are `monotonicNs()` readings (CLOCK_MONOTONIC), comparable with a program's own.
   */
  async timedCall<T>(
    tool: string,
    args: Record<string, unknown>,
    sessionID: string,
  ): Promise<{ value: T; ms: number; calledAt: bigint; returnedAt: bigint }> {
    const { text, ...timing } = await this.timedText(tool, args, sessionID);
    return { value: JSON.parse(text) as T, ...timing };
  }

  /**
   * The same, the envelope left as the string it is: for a suite that must not add garbage of its own to the
   * plugin's (a parsed 500-line page is as much again as the read made, and in Bun a read's p99 is decided by
   * how often a collection falls in one: docs/perf-journal.md, thirty-fourth session).
   */
  async timedText(
    tool: string,
    args: Record<string, unknown>,
    sessionID: string,
  ): Promise<{ text: string; ms: number; calledAt: bigint; returnedAt: bigint }> {
    const definition = this.host.hooks.tool[tool];
    if (definition === undefined) throw new Error(`no tool ${tool}`);
    const context = this.host.toolContext({ sessionID });
    const calledAt = monotonicNs();
    const text = await definition.execute(args, context);
    const returnedAt = monotonicNs();
    return { text, ms: Number(returnedAt - calledAt) / 1e6, calledAt, returnedAt };
  }

  /** `bash -c script` in a PTY, with an exit notification. */
  spawnShell(sessionID: string, script: string, extra: Record<string, unknown> = {}): Promise<SpawnResult> {
    return this.call<SpawnResult>(
      'pty_spawn',
      { command: 'bash', args: ['-c', script], description: 'bench', notifyOnExit: true, ...extra },
      sessionID,
    );
  }

  /** A page of lines (no pattern, no raw). */
  read(sessionID: string, args: Record<string, unknown>): Promise<LinesRead> {
    return this.call<LinesRead>('pty_read', args, sessionID);
  }

  kill(sessionID: string, id: string, cleanup = true): Promise<unknown> {
    return this.call('pty_kill', { id, cleanup }, sessionID);
  }

  /** Resolves with the exit envelope once the PTY's process has exited (the notification arrived). */
  waitExit(id: string): Promise<ExitEnvelope> {
    const done = this.exited.get(id);
    if (done) {
      this.exited.delete(id);
      return Promise.resolve(done);
    }
    return new Promise((resolve) => this.waiters.set(id, resolve));
  }

  async dispose(): Promise<void> {
    await this.host.close();
    this.host.cleanup();
  }
}
