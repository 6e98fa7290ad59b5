import type { z } from 'zod';
import type { CallContext, PermissionRequest } from '../core/host-port.js';
import type { LocalPty } from '../core/local-pty.js';
import { PtyError } from '../errors.js';
import { PTY_TOOLS, runTool } from '../tools/definitions.js';

/**
 * What every host adapter shares: the five tools bound to one core, in PTY_TOOLS order, and the mapping of a
 * host's tool call onto the core's CallContext. Each adapter only translates these to its host's shapes.
 */

/** One PTY tool bound to a core: validated input in, the JSON envelope (and its value) out; errors thrown as they are. */
export interface HostTool {
  readonly name: string;
  readonly description: string;
  readonly args: z.ZodRawShape;
  run(rawInput: unknown, ctx: CallContext): Promise<{ text: string; value: unknown }>;
}

/** The five tools, in the order the model should learn them (PTY_TOOLS), each bound to `core`. */
export function hostTools(core: LocalPty): HostTool[] {
  return PTY_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    args: tool.args,
    run: (rawInput, ctx) => runTool(tool, core, ctx, rawInput),
  }));
}

/** What the user's permission prompt shows with a request: its own metadata plus its title. */
export function permissionMetadata(request: PermissionRequest): Record<string, unknown> {
  return { ...request.metadata, title: request.title };
}

/**
 * The core's view of one tool call. `ask` resolves when the host allows the request and rejects otherwise;
 * `signal` is the host's cancellation of the call, when it gives one.
 */
export function callContext(
  owner: string,
  signal: AbortSignal | undefined,
  ask: (request: PermissionRequest) => Promise<void>,
): CallContext {
  return { owner, ask, ...(signal ? { signal } : {}) };
}

/**
 * A tool call with no session id to own it is refused, by either host: the owner is the session id, and PTYs owned by
 * "" would be ended by no session's deletion. `what` names what the host left out.
 */
export function withoutSession(what: string): PtyError {
  return new PtyError('invalid_input', `the host called this tool without ${what}; nothing was done.`);
}

export const hasSessionID = (sessionID: unknown): sessionID is string =>
  typeof sessionID === 'string' && sessionID.length > 0;
