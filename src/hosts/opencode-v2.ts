import { defer, EMPTY, filter, map, type Observable } from 'rxjs';
import { z } from 'zod';
import { LocalPty } from '../core/local-pty.js';
import type { CallContext, PtyNotification, HostPort, Logger, PermissionRequest } from '../core/host-port.js';
import { PtyError } from '../errors.js';
import { strictSchema } from '../tools/parse-input.js';
import { fromAsyncIterable } from '../streams/host-event-stream.js';
import { deletedSessionID, SessionDeletedEvent } from './host-events.js';
import {
  callContext,
  hasSessionID,
  hostTools,
  permissionMetadata,
  type HostTool,
  withoutSession,
} from './host-tools.js';

// Structural types for the parts of OpenCode V2's `Plugin.define` API we use (anomalyco/opencode,
// packages/plugin/src/promise/* and packages/schema/src/*); nothing is imported from the host's packages,
// so this adapter has no runtime dependency on them. The API moves fast: only what is used is typed.

/** `Tool.Context` plus the promise flavour's `signal` (packages/schema/src/tool.ts, promise/tool.ts). */
export interface V2ToolContext {
  readonly sessionID: string;
  readonly agent: string;
  readonly messageID: string;
  /** The tool call's id (`Tool.CallID`). */
  readonly id: string;
  readonly signal?: AbortSignal;
}

/** `Tool.TextContent` (packages/schema/src/tool.ts). */
export interface V2TextContent {
  readonly type: 'text';
  readonly text: string;
}

/** `Tool.Result`: `output` is the structured value, `content` what the model reads. */
export interface V2ToolResult {
  readonly output?: unknown;
  readonly content?: string | readonly V2TextContent[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A Standard Schema (zod 4 schemas are one); the host validates tool input with it and derives the JSON Schema. */
export interface V2InputSchema {
  readonly '~standard': { readonly version: 1; readonly vendor: string; validate(value: unknown): unknown };
}

/** `Tool.Info` as the promise API's `ToolEditor.add` takes it. */
export interface V2ToolInfo {
  readonly name: string;
  readonly description: string;
  readonly input: V2InputSchema;
  /** `codemode: false` offers the tool to the model directly, not only through the code-mode catalog. */
  readonly options?: { readonly codemode?: boolean };
  execute(input: unknown, context: V2ToolContext): Promise<V2ToolResult>;
}

export interface V2ToolEditor {
  add(tool: V2ToolInfo): void;
}

/** `Registration` (packages/plugin/src/promise/registration.ts). */
export interface V2Registration {
  dispose(): Promise<void>;
}

/** `Permission.Source` (packages/schema/src/permission.ts): the tool call that asks. */
export interface V2PermissionSource {
  readonly type: 'tool';
  readonly messageID: string;
  readonly callID: string;
}

/** The permission assert input: evaluated against the user's rules, prompting when they say `ask`. */
export interface V2PermissionAssertInput {
  readonly sessionID: string;
  readonly action: string;
  readonly resources: readonly string[];
  readonly save?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly source?: V2PermissionSource;
  readonly agent?: string;
}

/** The `session.synthetic` input (server route `session.synthetic`; `SessionDelivery.Delivery`). */
export interface V2SyntheticInput {
  readonly sessionID: string;
  readonly text: string;
  readonly description?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly delivery?: 'steer' | 'queue';
}

/** The parts of the plugin `Context` (packages/plugin/src/promise/plugin.ts) this plugin uses. */
export interface V2Context {
  /** `Location.Info` (packages/schema/src/location.ts): `directory` is the instance's directory. */
  readonly location?: { readonly directory: string; readonly project?: { readonly directory: string } };
  readonly tool: {
    // biome-ignore lint/suspicious/noConfusingVoidType: mirrors the host's published signature, which returns void.
    transform(callback: (editor: V2ToolEditor) => void): Promise<V2Registration | void> | V2Registration | void;
  };
  readonly permission?: {
    /** Optional in the type because published plugin domains have lacked it: without it nothing is ever allowed. */
    readonly assert?: (input: V2PermissionAssertInput) => Promise<unknown>;
  };
  readonly session: {
    /** Takes only its input upstream; a signal passed as a second argument is used where the client honours one. */
    synthetic(input: V2SyntheticInput, options?: { signal?: AbortSignal }): Promise<unknown>;
  };
  readonly event?: {
    subscribe(): AsyncIterable<unknown>;
  };
}

export type V2Cleanup = () => Promise<void>;

/** `Plugin` (packages/plugin/src/promise/plugin.ts); upstream `Plugin.define` is the identity function. */
export interface V2Plugin {
  readonly id: string;
  readonly setup: (context: V2Context) => Promise<V2Cleanup>;
}

export interface V2SetupOptions {
  /** V2's plugin context has no logger (`App` is name/version/channel): warnings go to stderr unless given one. */
  readonly log?: Logger;
}

const SERVICE = 'local-pty';

/** Warnings and errors to stderr (the server's log); info (e.g. evictions) is routine and dropped. */
const stderrLogger: Logger = {
  info: () => undefined,
  warn: (message, extra) => writeStderr('warn', message, extra),
  error: (message, extra) => writeStderr('error', message, extra),
};

function writeStderr(level: string, message: string, extra?: Record<string, unknown>): void {
  process.stderr.write(`[${SERVICE}] ${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ''}\n`);
}

/** V2's durable `session.deleted` (packages/schema/src/session-event.ts `Deleted`): `{type, data: {sessionID}}`. */
const V2SessionDeletedEvent = z.object({
  type: z.literal('session.deleted'),
  data: z.object({ sessionID: z.string().min(1) }).loose(),
});

/** The deleted session's id, for a deletion in V2's shape or in the v1 wire shapes; undefined for anything else. */
export function v2DeletedSessionID(event: unknown): string | undefined {
  // The stream carries every event (text deltas included): reject the rest before any parsing.
  if (typeof event !== 'object' || event === null || (event as { type?: unknown }).type !== 'session.deleted')
    return undefined;
  const v2 = V2SessionDeletedEvent.safeParse(event);
  if (v2.success) return v2.data.data.sessionID;
  const v1 = SessionDeletedEvent.safeParse(event);
  return v1.success ? deletedSessionID(v1.data) : undefined;
}

/**
 * Deleted session ids from the host's event stream. `subscribe()` is called with no argument: its parameter
 * has been an event type in one upstream version and request options in another, so we filter ourselves.
 * The iterator is opened when the core subscribes and `return()`ed when it unsubscribes (plugin close).
 */
function sessionDeleted$(ctx: V2Context, log: Logger): Observable<string> {
  const events = ctx.event;
  if (typeof events?.subscribe !== 'function') {
    log.warn('the host gives no event stream: PTYs of deleted sessions are ended only when the plugin closes');
    return EMPTY;
  }
  return defer(() => fromAsyncIterable(events.subscribe())).pipe(
    map((event) => {
      // An odd event (a getter that throws, a revoked proxy) is logged and skipped; it must not end the stream.
      try {
        return v2DeletedSessionID(event);
      } catch (err) {
        log.warn('ignored a host event that could not be read', { error: String(err) });
        return undefined;
      }
    }),
    filter((id): id is string => id !== undefined),
  );
}

/** The exit notification as a synthetic message steered into the owner session's running turn. */
async function notifyV2(ctx: V2Context, n: PtyNotification, signal: AbortSignal): Promise<void> {
  await ctx.session.synthetic(
    {
      sessionID: n.owner,
      text: n.text,
      description: n.label,
      metadata: { label: n.label, localPty: n.envelope },
      delivery: 'steer',
    },
    { signal },
  );
}

/** What the host said when it refused: its message, or (Effect tagged errors often carry none) the error's tag. */
function hostReason(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const { message, _tag, name } = err as { message?: unknown; _tag?: unknown; name?: unknown };
    for (const said of [message, _tag, name]) if (typeof said === 'string' && said) return said;
  }
  return String(err);
}

/**
 * Asks through `ctx.permission.assert` for the active tool call. Any rejection (blocked by a rule, declined or
 * corrected by the user, a host failure) becomes one clear tool error; the core has then started nothing.
 */
async function assertPermission(ctx: V2Context, tctx: V2ToolContext, request: PermissionRequest): Promise<void> {
  const assert = ctx.permission?.assert;
  if (typeof assert !== 'function') {
    throw new PtyError(
      'permission_denied',
      `${request.title}: not done, because this OpenCode gives plugins no way to ask the user (ctx.permission.assert is missing) and local-pty never acts without asking. Nothing was done; use OpenCode's own tools instead.`,
    );
  }
  try {
    await assert.call(ctx.permission, {
      sessionID: tctx.sessionID,
      action: request.permission,
      resources: [...request.patterns],
      // No "always allow" memory: every PTY action is approved on its own.
      save: [],
      metadata: permissionMetadata(request),
      source: { type: 'tool', messageID: tctx.messageID, callID: tctx.id },
      agent: tctx.agent,
    });
  } catch (err) {
    throw new PtyError(
      'permission_denied',
      `${request.title}: not allowed (${hostReason(err)}). Nothing was done. Do not retry the same action unless the user asks for it.`,
    );
  }
}

function v2CallContext(ctx: V2Context, tctx: V2ToolContext): CallContext {
  // As in V1: sessionID "" was served, and its PTYs could be ended by no session's deletion.
  if (!hasSessionID(tctx?.sessionID)) throw withoutSession('a session id (ctx.sessionID)');
  return callContext(tctx.sessionID, tctx.signal, (request) => assertPermission(ctx, tctx, request));
}

function v2Tool(ctx: V2Context, tool: HostTool): V2ToolInfo {
  return {
    name: tool.name,
    description: tool.description,
    // The core's own strict schema: an unknown key is refused, not silently dropped.
    input: strictSchema(tool.args),
    options: { codemode: false },
    execute: async (input, tctx) => {
      const { text, value } = await tool.run(input, v2CallContext(ctx, tctx));
      return { output: value, content: [{ type: 'text', text }] };
    },
  };
}

/**
 * The OpenCode V2 plugin's setup: the five tools (PTY_TOOLS order) through `ctx.tool.transform`, deletions from
 * `ctx.event.subscribe()`, exit notifications through `ctx.session.synthetic`. Resolves with the cleanup, which
 * closes the core (every PTY ended, every pending operation settled, bounded by CLOSE_TIMEOUT_MS).
 *
 * The project directory (default workdir, boundary of external_directory) is `ctx.location.directory`, the
 * counterpart of V1's `directory`; V2's `app` and `options` carry none. A host without `location` falls back
 * to the server's working directory, with a warning.
 */
export async function setupV2(ctx: V2Context, options: V2SetupOptions = {}): Promise<V2Cleanup> {
  const log = options.log ?? stderrLogger;
  let projectDir = ctx.location?.directory;
  if (projectDir === undefined) {
    projectDir = process.cwd();
    log.warn('the host gave no location; using the working directory as the project directory', { projectDir });
  }
  const host: HostPort = {
    notify: (n, signal) => notifyV2(ctx, n, signal),
    sessionDeleted$: sessionDeleted$(ctx, log),
    log,
  };
  const core = new LocalPty({ projectDir, host });
  const tools = hostTools(core).map((tool) => v2Tool(ctx, tool));
  try {
    await ctx.tool.transform((editor) => {
      for (const tool of tools) editor.add(tool);
    });
  } catch (err) {
    await core.close();
    throw err;
  }
  return () => core.close();
}
