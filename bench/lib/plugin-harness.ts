import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalPtyPlugin } from '../../src/index.js';
import type { V1Client, V1Hooks, V1ToolContext } from '../../src/hosts/opencode-v1.js';
import type { ExitEnvelope, LinesRead, SpawnResult } from '../../src/protocol/tool-results.js';

/**
 * The real plugin (`LocalPtyPlugin(input)` → hooks), driven as OpenCode would drive it: every tool call goes
 * through `hooks.tool[name].execute` (zod parsing, the core, the JSON envelope); the fake host allows every
 * permission ask and catches exit notifications, which is how a PTY's end is observed.
 */
export class PluginHarness {
  readonly projectDir: string;
  private readonly exited = new Map<string, ExitEnvelope>();
  private readonly waiters = new Map<string, (env: ExitEnvelope) => void>();
  readonly errors: string[] = [];

  private constructor(
    readonly hooks: V1Hooks,
    projectDir: string,
  ) {
    this.projectDir = projectDir;
  }

  static async open(): Promise<PluginHarness> {
    const projectDir = realpathSync(mkdtempSync(join(tmpdir(), 'local-pty-bench-')));
    let harness: PluginHarness | undefined;
    const client: V1Client = {
      session: {
        promptAsync: async (options) => {
          const env = options.body.parts[0]?.metadata?.['localPty'] as ExitEnvelope | undefined;
          if (env !== undefined) harness?.onExit(env);
          return { data: {} };
        },
        messages: async () => ({ data: [] }),
      },
      app: {
        log: async ({ body }) => {
          if (body.level === 'error' || body.level === 'warn') harness?.errors.push(`${body.level}: ${body.message}`);
        },
      },
    };
    const hooks = await LocalPtyPlugin({ client, directory: projectDir });
    harness = new PluginHarness(hooks, projectDir);
    return harness;
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

  private context(sessionID: string): V1ToolContext {
    return { sessionID, ask: async () => {} };
  }

  async call<T>(tool: string, args: Record<string, unknown>, sessionID: string): Promise<T> {
    return (await this.timedCall<T>(tool, args, sessionID)).value;
  }

  /** A tool call timed from `execute` to the envelope string it returns (parsing it back is not timed). */
  async timedCall<T>(tool: string, args: Record<string, unknown>, sessionID: string): Promise<{ value: T; ms: number }> {
    const definition = this.hooks.tool[tool];
    if (definition === undefined) throw new Error(`no tool ${tool}`);
    const context = this.context(sessionID);
    const t0 = performance.now();
    const text = await definition.execute(args, context);
    const ms = performance.now() - t0;
    return { value: JSON.parse(text) as T, ms };
  }

  /** `bash -c script` in a PTY, with an exit notification. */
  spawnShell(sessionID: string, script: string, extra: Record<string, unknown> = {}): Promise<SpawnResult> {
    return this.call<SpawnResult>('pty_spawn', { command: 'bash', args: ['-c', script], description: 'bench', notifyOnExit: true, ...extra }, sessionID);
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
    await this.hooks.dispose();
    rmSync(this.projectDir, { recursive: true, force: true });
  }
}
