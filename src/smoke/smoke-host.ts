import type { V1ToolContext } from '../hosts/opencode-v1.js';
import type { PermissionRecord } from '../testkit/fake-host.js';
import { type PromptOptions, V1HostFixture, type V1Message } from '../testkit/fake-v1-host.js';
import { childrenOfSelf } from '../testkit/processes.js';
import type { SmokeBackend } from './backends.js';
import { fail, show } from './expect.js';

/**
 * The smoke run's view of the testkit's fake OpenCode 1.18 host: sessions whose fake user answers every
 * permission prompt by a policy, and tool calls that fail the scenario with what was expected and what was seen.
 */

/** How the fake user answers a permission prompt. `hang` never answers until the harness settles it. */
export type AskPolicy = 'allow' | 'reject' | 'hang';

type AskRequest = Parameters<V1ToolContext['ask']>[0];

export interface AskRecord extends AskRequest {
  readonly sessionID: string;
  readonly answer: AskPolicy;
  /** Direct children of the smoke process when the prompt was shown (nothing may have started yet). */
  readonly childrenAtAsk: number;
}

/** What a rejected permission prompt throws in the smoke run: a tool error whose code says so. */
export class PermissionRejected extends Error {
  readonly code = 'rejected';
  constructor(permission: string) {
    super(`the user rejected permission ${permission}`);
    this.name = 'PermissionRejected';
  }
}

/** The outcome of one tool call as the model would see it: the parsed JSON envelope, or the error. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** One OpenCode session calling the plugin's tools, with a fake user answering its permission prompts. */
export class SmokeSession {
  readonly asks: AskRecord[] = [];
  private calls = 0;

  constructor(
    readonly id: string,
    private readonly host: SmokeHost,
    public policy: AskPolicy,
  ) {}

  /** Calls a tool; never throws for a tool error (see `call` and `refused`). */
  async attempt<T = unknown>(tool: string, args: unknown): Promise<Outcome<T>> {
    const names = this.host.fixture.toolNames();
    if (!names.includes(tool)) fail(`calling ${tool}`, 'the plugin to offer it', show(names));
    const outcome = await this.host.fixture.callTool(tool, args, {
      sessionID: this.id,
      messageID: `msg_smoke_${this.calls++}`,
      agent: 'smoke-agent',
    });
    if (!outcome.ok) {
      const e = outcome.error as { code?: unknown; name?: unknown };
      return { ok: false, code: typeof e.code === 'string' ? e.code : String(e.name), message: outcome.message };
    }
    if (tool === 'pty_spawn') this.host.spawned(outcome.value);
    return { ok: true, value: outcome.value as T };
  }

  /** Calls a tool and expects it to succeed. */
  async call<T = unknown>(tool: string, args: unknown): Promise<T> {
    const outcome = await this.attempt<T>(tool, args);
    if (!outcome.ok) fail(`${tool} ${show(args)}`, 'success', `error ${outcome.code}: ${outcome.message}`);
    return outcome.value;
  }

  /** Calls a tool and expects it to be refused with `code`; returns the message. */
  async refused(tool: string, args: unknown, code: string): Promise<string> {
    const outcome = await this.attempt(tool, args);
    if (outcome.ok) fail(`${tool} ${show(args)}`, `refusal ${code}`, `success ${show(outcome.value)}`);
    if (outcome.code !== code)
      fail(`${tool} ${show(args)}`, `refusal ${code}`, `error ${outcome.code}: ${outcome.message}`);
    return outcome.message;
  }

  /** Answers every prompt of this session left hanging (the user answering late). */
  answerHung(answer: 'allow' | 'reject'): void {
    this.host.fixture.permissions.release(answer, (r) => r.sessionID === this.id);
  }

  /** @internal The host's permission script asks the session's user. */
  decide(record: PermissionRecord): AskPolicy {
    const answer = this.policy;
    this.asks.push({
      ...(record.raw as AskRequest),
      sessionID: this.id,
      answer,
      childrenAtAsk: childrenOfSelf().length,
    });
    return answer;
  }
}

/** An in-process OpenCode running one plugin instance, with its sessions. */
export class SmokeHost {
  private readonly sessions = new Map<string, SmokeSession>();
  private disposed: Promise<void> | undefined;

  private constructor(
    readonly fixture: V1HostFixture,
    private readonly onSpawned: (pid: number) => void,
  ) {
    fixture.permissions.decide = (record) => this.session(record.sessionID).decide(record);
  }

  static async start(backend: SmokeBackend, projectDir: string, onSpawned: (pid: number) => void): Promise<SmokeHost> {
    const fixture = await V1HostFixture.create({
      plugin: (input) => backend.create(input),
      projectDir,
      // A session OpenCode has no messages for: the plugin must still deliver (queued, not as a new turn).
      defaultMessages: [],
      rejection: (record) => new PermissionRejected(record.permission),
    });
    return new SmokeHost(fixture, onSpawned);
  }

  get hooks() {
    return this.fixture.hooks;
  }

  session(id: string, policy: AskPolicy = 'allow'): SmokeSession {
    let session = this.sessions.get(id);
    if (session === undefined) {
      session = new SmokeSession(id, this, policy);
      this.sessions.set(id, session);
    }
    return session;
  }

  /** The session history `client.session.messages` answers with. */
  setHistory(sessionID: string, messages: V1Message[]): void {
    this.fixture.messages.set(sessionID, messages);
  }

  /** The `promptAsync` calls (exit notifications) for one session. */
  promptsFor(sessionID: string): PromptOptions[] {
    return this.fixture.promptsFor(sessionID);
  }

  /** How often the plugin read a session's history. */
  historyReads(sessionID: string): number {
    return this.fixture.messageCalls.filter((r) => r.id === sessionID).length;
  }

  event(event: unknown): Promise<void> {
    return this.hooks.event({ event });
  }

  /** What OpenCode sends when a session is deleted (the v2 wire shape: sessionID and info). */
  deleteSession(id: string): Promise<void> {
    return this.fixture.deleteSession(id, 'sessionID');
  }

  dispose(): Promise<void> {
    this.disposed ??= this.fixture.close().finally(() => this.fixture.permissions.release('reject'));
    return this.disposed;
  }

  /** @internal the harness tracks every PTY a spawn reports. */
  spawned(value: unknown): void {
    const pid = (value as { pid?: unknown }).pid;
    if (typeof pid === 'number') this.onSpawned(pid);
  }
}
