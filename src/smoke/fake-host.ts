import type { V1Client, V1Hooks, V1ToolContext } from '../hosts/opencode-v1.js';
import type { SmokeBackend } from './backends.js';
import { fail, show } from './expect.js';
import { childrenOfSelf } from './processes.js';

/** How the fake user answers a permission prompt. `hang` never answers until the harness settles it. */
export type AskPolicy = 'allow' | 'reject' | 'hang';

type AskRequest = Parameters<V1ToolContext['ask']>[0];
type PromptOptions = Parameters<V1Client['session']['promptAsync']>[0];
type MessagesOptions = Parameters<V1Client['session']['messages']>[0];
type HistoryMessage = { info: { role: string; agent?: string; model?: { providerID: string; modelID: string } } };

export interface AskRecord extends AskRequest {
  readonly sessionID: string;
  readonly answer: AskPolicy;
  /** Direct children of the smoke process when the prompt was shown (nothing may have started yet). */
  readonly childrenAtAsk: number;
}

export interface PromptRecord {
  readonly sessionID: string;
  readonly body: PromptOptions['body'];
}

/** What a rejected permission prompt throws, as OpenCode's own rejection does. */
export class PermissionRejected extends Error {
  readonly code = 'rejected';
  constructor(permission: string) {
    super(`the user rejected permission ${permission}`);
    this.name = 'PermissionRejected';
  }
}

/** A v1 SDK client that records what the plugin sends and answers from a scripted session history. */
export class FakeClient implements V1Client {
  readonly prompts: PromptRecord[] = [];
  readonly messageReads: Array<{ sessionID: string; limit: number | undefined }> = [];
  readonly logs: Array<{ level: string; message: string }> = [];
  private readonly history = new Map<string, HistoryMessage[]>();

  readonly session: V1Client['session'] = {
    promptAsync: async (options: PromptOptions) => {
      this.prompts.push({ sessionID: options.path.id, body: options.body });
      return { data: {} };
    },
    messages: async (options: MessagesOptions) => {
      this.messageReads.push({ sessionID: options.path.id, limit: options.query?.limit });
      return { data: this.history.get(options.path.id) ?? [] };
    },
  };

  readonly app: NonNullable<V1Client['app']> = {
    log: async (options) => {
      this.logs.push({ level: options.body.level, message: options.body.message });
      return {};
    },
  };

  setHistory(sessionID: string, messages: HistoryMessage[]): void {
    this.history.set(sessionID, messages);
  }

  promptsFor(sessionID: string): PromptRecord[] {
    return this.prompts.filter((p) => p.sessionID === sessionID);
  }
}

/** The outcome of one tool call as the model would see it: the parsed JSON envelope, or the error. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: string; readonly message: string };

/** One OpenCode session calling the plugin's tools, with a fake user answering its permission prompts. */
export class FakeSession {
  readonly asks: AskRecord[] = [];
  private readonly hung: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];

  constructor(
    readonly id: string,
    private readonly host: FakeOpenCode,
    public policy: AskPolicy,
  ) {}

  /** Calls a tool; never throws for a tool error (see `call` and `refused`). */
  async attempt<T = unknown>(tool: string, args: unknown): Promise<Outcome<T>> {
    const definition = this.host.hooks.tool[tool];
    if (definition === undefined) fail(`calling ${tool}`, 'the plugin to offer it', show(Object.keys(this.host.hooks.tool)));
    try {
      const text = await definition.execute(args, this.context());
      const value = JSON.parse(text) as T;
      if (tool === 'pty_spawn') this.host.spawned(value);
      return { ok: true, value };
    } catch (err) {
      const e = err as { code?: unknown; name?: unknown; message?: unknown };
      return { ok: false, code: typeof e.code === 'string' ? e.code : String(e.name), message: String(e.message) };
    }
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
    if (outcome.code !== code) fail(`${tool} ${show(args)}`, `refusal ${code}`, `error ${outcome.code}: ${outcome.message}`);
    return outcome.message;
  }

  /** Answers every prompt left hanging (the user answering late). */
  answerHung(answer: 'allow' | 'reject'): void {
    for (const h of this.hung.splice(0)) {
      if (answer === 'allow') h.resolve();
      else h.reject(new PermissionRejected('(late)'));
    }
  }

  private context(): V1ToolContext {
    return {
      sessionID: this.id,
      messageID: `msg_smoke_${this.asks.length}`,
      agent: 'smoke-agent',
      abort: new AbortController().signal,
      metadata: () => undefined,
      ask: (request) => {
        const answer = this.policy;
        this.asks.push({ ...request, sessionID: this.id, answer, childrenAtAsk: childrenOfSelf().length });
        if (answer === 'allow') return Promise.resolve();
        if (answer === 'reject') return Promise.reject(new PermissionRejected(request.permission));
        return new Promise<void>((resolve, reject) => this.hung.push({ resolve, reject }));
      },
    };
  }
}

/** An in-process OpenCode: one plugin instance, its client, its sessions and its event stream. */
export class FakeOpenCode {
  private readonly sessions = new Map<string, FakeSession>();
  private disposed: Promise<void> | undefined;

  private constructor(
    readonly client: FakeClient,
    readonly hooks: V1Hooks,
    private readonly onSpawned: (pid: number) => void,
  ) {}

  static async start(backend: SmokeBackend, directory: string, onSpawned: (pid: number) => void): Promise<FakeOpenCode> {
    const client = new FakeClient();
    const hooks = await backend.create({ client, directory, worktree: directory });
    return new FakeOpenCode(client, hooks, onSpawned);
  }

  session(id: string, policy: AskPolicy = 'allow'): FakeSession {
    let session = this.sessions.get(id);
    if (session === undefined) {
      session = new FakeSession(id, this, policy);
      this.sessions.set(id, session);
    }
    return session;
  }

  event(event: unknown): Promise<void> {
    return this.hooks.event({ event });
  }

  /** What OpenCode sends when a session is deleted (the v2 wire shape: sessionID and info). */
  deleteSession(id: string): Promise<void> {
    return this.event({ type: 'session.deleted', properties: { sessionID: id, info: { id } } });
  }

  dispose(): Promise<void> {
    this.disposed ??= this.hooks.dispose().finally(() => {
      for (const s of this.sessions.values()) s.answerHung('reject');
    });
    return this.disposed;
  }

  /** @internal the harness tracks every PTY a spawn reports. */
  spawned(value: unknown): void {
    const pid = (value as { pid?: unknown }).pid;
    if (typeof pid === 'number') this.onSpawned(pid);
  }
}
