import type { Observable } from 'rxjs';
import type { PtyEnvelope } from '../protocol/tool-results.js';

/** What the user is asked before a PTY action; the adapters map it onto their host's permission API. */
export interface PermissionRequest {
  /** The host's permission key: `bash` for running and driving commands, `external_directory` for a workdir. */
  readonly permission: 'bash' | 'external_directory';
  /** What the user's rules are matched against (the exact command line, words quoted only where they need it, the visible bytes, …). */
  readonly patterns: readonly string[];
  readonly title: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One tool call, as the core sees it: who calls, and how to ask that caller's user. */
export interface CallContext {
  /** The OpenCode session that calls, and so owns what it spawns (the host's `sessionID`). */
  readonly owner: string;
  /** Resolves when allowed; rejects (any error) when the user or their rules say no. */
  ask(request: PermissionRequest): Promise<void>;
  /** Aborted by the host when the tool call is cancelled. */
  readonly signal?: AbortSignal;
}

/** A message from a PTY to its owner session: its exit (`pty.exit`) or a watch rule's match (`pty.match`). */
export interface PtyNotification {
  /** The OpenCode session that owns the PTY and receives the message. */
  readonly owner: string;
  /** `PTY exited: <description>`, `PTY output matched: <description>` */
  readonly label: string;
  /** The JSON envelope, as text, that the model reads. */
  readonly text: string;
  readonly envelope: PtyEnvelope;
}

export interface Logger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/** Everything the core needs from a host; it knows nothing else of OpenCode. */
export interface HostPort {
  /** Puts a message into the owner session (waking it if idle, keeping its agent and model). */
  notify(notification: PtyNotification, signal: AbortSignal): Promise<void>;
  /** IDs of deleted sessions. Completes or never emits when the host has no such events. */
  readonly sessionDeleted$: Observable<string>;
  readonly log: Logger;
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
