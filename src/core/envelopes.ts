import { NOTIFY_DESCRIPTION_CHARS, NOTIFY_LAST_LINE_CHARS } from '../limits.js';
import type { ExitEnvelope, PtyDescription } from '../protocol/tool-results.js';
import type { PtySession } from './pty-session.js';

/** What pty_spawn, pty_list and pty_kill say about a PTY. */
export function describePty(session: PtySession): PtyDescription {
  const { info } = session;
  return {
    id: info.id,
    title: info.title,
    description: info.description,
    command: info.command,
    args: info.args,
    workdir: info.workdir,
    status: session.status,
    exitCode: session.exitCode,
    signal: session.signal,
    signalInferred: session.signalInferred,
    pid: session.pid,
    commandPid: session.commandPid,
    createdAt: info.createdAt,
    endedAt: session.endedAt,
    timeoutSeconds: info.timeoutSeconds,
    timedOut: session.status === 'timeout',
    notifyOnExit: info.notifyOnExit,
    lineCount: session.lineCount,
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The `pty.exit` message the owner session receives. */
export function exitEnvelope(session: PtySession): ExitEnvelope {
  return {
    type: 'pty.exit',
    id: session.info.id,
    description: clip(session.info.description, NOTIFY_DESCRIPTION_CHARS),
    exitCode: session.exitCode,
    exitSignal: session.signal,
    exitSignalInferred: session.signalInferred,
    status: session.status,
    timeoutSeconds: session.info.timeoutSeconds,
    timedOut: session.status === 'timeout',
    outputLines: session.lineCount,
    lastLine: clip(session.buffer.lastNonBlankLine() ?? '', NOTIFY_LAST_LINE_CHARS),
  };
}

export function exitLabel(session: PtySession): string {
  return `PTY exited: ${clip(session.info.description, NOTIFY_DESCRIPTION_CHARS)}`;
}
