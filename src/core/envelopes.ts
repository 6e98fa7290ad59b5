import { NOTIFY_DESCRIPTION_CHARS, NOTIFY_LAST_LINE_CHARS } from '../limits.js';
import type { ExitEnvelope, PtyDescription } from '../protocol/tool-results.js';
import type { PtySession } from './pty-session.js';
import type { MemberList } from '../streams/session-report.js';

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
    commandPid: session.terminalSid,
    lingering: lingeringView(session),
    createdAt: info.createdAt,
    endedAt: session.endedAt,
    timeoutSeconds: info.timeoutSeconds,
    timedOut: session.status === 'timeout',
    notifyOnExit: info.notifyOnExit,
    lineCount: session.lineCount,
  };
}

/**
 * Members of the terminal session still alive after the program exited (a backgrounded server, or survivors of a
 * kill): the exact count and the first few by pid and command. null when there are none.
 */
function lingeringView(session: PtySession) {
  return membersView(session.lingering);
}

/** A member list as the model sees it: null for none, else the exact count and the first few (pid, command). */
export function membersView({ count, listed }: MemberList) {
  return count === 0 ? null : { count, members: listed.map(({ pid, command }) => ({ pid, command })) };
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
    lingering: lingeringView(session),
    outputLines: session.lineCount,
    // One character past the clip: enough for clip to tell a longer line, whose rest is never made a string.
    lastLine: clip(session.buffer.lastNonBlankLineHead(NOTIFY_LAST_LINE_CHARS + 1) ?? '', NOTIFY_LAST_LINE_CHARS),
  };
}

export function exitLabel(session: PtySession): string {
  return `PTY exited: ${clip(session.info.description, NOTIFY_DESCRIPTION_CHARS)}`;
}
