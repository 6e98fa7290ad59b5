import { Subject } from 'rxjs';
import type { z } from 'zod';
import { LocalPty, type LocalPtyOptions } from '../core/local-pty.js';
import type { CallContext, PtyNotification, HostPort, Logger } from '../core/host-port.js';
import { WAKE_LOOKUP_MESSAGES } from '../limits.js';
import { callContext, hasSessionID, hostTools, permissionMetadata, withoutSession } from './host-tools.js';
import { SessionActivity, type SessionTurn } from './session-activity.js';

// Structural types for the parts of OpenCode 1.18's plugin API we use (see docs/HOSTS.md); no import of
// @opencode-ai/plugin, so the package has no runtime dependency on the host's own packages.

interface V1Result<T> {
  readonly data?: T;
  readonly error?: unknown;
}

interface V1Message {
  readonly info: {
    readonly role: string;
    readonly agent?: string;
    readonly model?: { providerID: string; modelID: string };
  };
}

export interface V1Client {
  readonly session: {
    promptAsync(options: {
      path: { id: string };
      body: {
        parts: Array<{ type: 'text'; text: string; synthetic?: boolean; metadata?: Record<string, unknown> }>;
        noReply?: boolean;
        agent?: string;
        model?: { providerID: string; modelID: string };
      };
      signal?: AbortSignal;
    }): Promise<V1Result<unknown>>;
    messages(options: {
      path: { id: string };
      query?: { limit?: number };
      signal?: AbortSignal;
    }): Promise<V1Result<V1Message[]>>;
  };
  readonly app?: {
    log(options: {
      body: {
        service: string;
        level: 'debug' | 'info' | 'error' | 'warn';
        message: string;
        extra?: Record<string, unknown>;
      };
    }): Promise<unknown>;
  };
}

export interface V1PluginInput {
  readonly client: V1Client;
  readonly directory: string;
  readonly worktree?: string;
}

export interface V1ToolContext {
  readonly sessionID: string;
  readonly messageID?: string;
  readonly agent?: string;
  readonly abort?: AbortSignal;
  ask(request: {
    permission: string;
    patterns: string[];
    always: string[];
    metadata: Record<string, unknown>;
  }): Promise<void>;
  metadata?(input: { title?: string; metadata?: Record<string, unknown> }): void;
}

export interface V1ToolDefinition {
  description: string;
  /** A zod shape: OpenCode builds the model's JSON schema from it (test/types checks this against the host's type). */
  args: z.ZodRawShape;
  execute(args: unknown, ctx: V1ToolContext): Promise<string>;
}

export interface V1Hooks {
  tool: Record<string, V1ToolDefinition>;
  event(input: { event: unknown }): Promise<void>;
  dispose(): Promise<void>;
}

const SERVICE = 'local-pty';

function hostLogger(client: V1Client): Logger {
  const send = (level: 'info' | 'warn' | 'error') => (message: string, extra?: Record<string, unknown>) => {
    // Logging must never fail or delay a caller.
    client.app?.log({ body: { service: SERVICE, level, message, ...(extra ? { extra } : {}) } }).catch(() => undefined);
  };
  return { info: send('info'), warn: send('warn'), error: send('error') };
}

function resultOrThrow<T>(what: string, result: V1Result<T>): T | undefined {
  if (result.error !== undefined) throw new Error(`${what} failed: ${JSON.stringify(result.error)}`);
  return result.data;
}

/**
 * Delivers an exit notification, always with the agent and model of the session's last user message: into an
 * idle session as a new turn; into a busy one as a `noReply` message its next step reads. OpenCode 1.18.33 gives
 * every prompt, `noReply` ones included, an agent and a model (the defaults when none is passed) and runs a
 * turn's next step with those of its LAST user message, so a notification without them would switch the
 * user's agent and model, in a woken turn and in the middle of a running one alike (seen end to end).
 */
async function notifyV1(
  client: V1Client,
  activity: SessionActivity,
  log: Logger,
  n: PtyNotification,
  signal: AbortSignal,
): Promise<void> {
  const parts = [
    { type: 'text' as const, text: n.text, synthetic: true, metadata: { label: n.label, localPty: n.envelope } },
  ];
  const keep = activity.lastTurn(n.owner) ?? (await lastTurnOrUnknown(client, log, n, signal));
  if (keep && !activity.isBusy(n.owner)) {
    resultOrThrow(
      'waking the session',
      await client.session.promptAsync({ path: { id: n.owner }, body: { ...keep, parts }, signal }),
    );
    return;
  }
  resultOrThrow(
    'queueing the notification',
    await client.session.promptAsync({ path: { id: n.owner }, body: { noReply: true, ...keep, parts }, signal }),
  );
}

/**
 * The notification is never dropped for want of the agent and model: if the messages cannot be read, it is
 * delivered without them (queued, not waking the session) and what was missing is logged.
 */
async function lastTurnOrUnknown(
  client: V1Client,
  log: Logger,
  n: PtyNotification,
  signal: AbortSignal,
): Promise<SessionTurn | undefined> {
  try {
    return await lastTurnFromMessages(client, n.owner, signal);
  } catch (err) {
    signal.throwIfAborted();
    log.warn(
      'exit notification delivered without the agent and model of the last user message: reading the session failed',
      {
        owner: n.owner,
        label: n.label,
        error: String(err),
      },
    );
    return undefined;
  }
}

/**
 * For a session whose last user message came before the plugin saw any event of it: read its newest messages.
 * OpenCode writes one assistant message per step, so after a long turn the user message may be out of reach;
 * the events (SessionActivity) are the main source.
 */
async function lastTurnFromMessages(
  client: V1Client,
  sessionID: string,
  signal: AbortSignal,
): Promise<SessionTurn | undefined> {
  const messages =
    resultOrThrow(
      'reading the session',
      await client.session.messages({ path: { id: sessionID }, query: { limit: WAKE_LOOKUP_MESSAGES }, signal }),
    ) ?? [];
  const lastUser = [...messages].reverse().find((m) => m.info.role === 'user' && m.info.agent && m.info.model);
  return lastUser?.info.agent && lastUser.info.model
    ? { agent: lastUser.info.agent, model: lastUser.info.model }
    : undefined;
}

/** A tool call without a session to own it cannot be served: a clear error rather than a TypeError. */
function checkedToolContext(ctx: V1ToolContext | undefined): V1ToolContext {
  if (!hasSessionID(ctx?.sessionID) || typeof ctx?.ask !== 'function') {
    throw withoutSession('a session id and a permission prompt (ctx.sessionID, ctx.ask)');
  }
  return ctx;
}

function v1CallContext(ctx: V1ToolContext): CallContext {
  return callContext(ctx.sessionID, ctx.abort, (request) =>
    ctx.ask({
      permission: request.permission,
      patterns: [...request.patterns],
      // No "always allow" memory: every PTY action is approved on its own.
      always: [],
      metadata: permissionMetadata(request),
    }),
  );
}

/**
 * Parts of the core a harness may swap (the smoke run's deliberately broken backends). OpenCode never passes
 * this: `LocalPtyPlugin` forwards its input only, so OpenCode's plugin `options` cannot reach it.
 */
export type V1CoreOverrides = Pick<LocalPtyOptions, 'spawn' | 'limits'>;

/** The OpenCode (1.18, Bun) plugin: five tools, session-deleted events, dispose closes every PTY. */
export async function createV1Plugin(input: V1PluginInput, overrides: V1CoreOverrides = {}): Promise<V1Hooks> {
  const activity = new SessionActivity();
  const deleted$ = new Subject<string>();
  const log = hostLogger(input.client);
  const host: HostPort = {
    notify: (n, signal) => notifyV1(input.client, activity, log, n, signal),
    sessionDeleted$: deleted$,
    log,
  };
  const core = new LocalPty({ ...overrides, projectDir: input.directory, host });
  const tool: Record<string, V1ToolDefinition> = {};
  for (const t of hostTools(core)) {
    tool[t.name] = {
      description: t.description,
      args: t.args,
      execute: async (args, ctx) => (await t.run(args, v1CallContext(checkedToolContext(ctx)))).text,
    };
  }
  return {
    tool,
    // Whatever the host passes (undefined, odd shapes, getters that throw) is logged and ignored, never thrown.
    event: async (input) => {
      try {
        const deleted = activity.observe((input as { event?: unknown } | null | undefined)?.event);
        if (deleted !== undefined) deleted$.next(deleted);
      } catch (err) {
        log.warn('ignored a host event that could not be read', { error: String(err) });
      }
    },
    dispose: async () => {
      deleted$.complete();
      await core.close();
    },
  };
}
