import { z } from 'zod';

/**
 * What the model reads back from each tool, and the `pty.exit` envelope it receives: one named schema per shape,
 * so the core's builders, the smoke run, the bench and the tests agree on one definition. The objects are strict:
 * a field the core adds without declaring it here fails the tests that parse results, instead of going unnoticed.
 */

/**
 * `lingering`: the program (the terminal session's leader) has ended, but members of its terminal session are still
 * alive (a server it backgrounded, or survivors of a kill): the PTY still answers for them.
 */
export const PtyStatus = z.enum(['starting', 'running', 'lingering', 'exited', 'killed', 'timeout']);
export type PtyStatus = z.infer<typeof PtyStatus>;

/** Processes of a PTY's terminal session: the exact count, and the first few by pid and command line. */
export const MemberList = z.strictObject({
  count: z.number().int(),
  members: z.array(z.strictObject({ pid: z.number().int(), command: z.string() })).readonly(),
});
export type MemberList = z.infer<typeof MemberList>;

/** What pty_spawn, pty_list and pty_kill say about a PTY. */
export const PtyDescription = z.strictObject({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  command: z.string(),
  args: z.array(z.string()).readonly(),
  workdir: z.string(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  /** The signal that ended the program, or the conventional name inferred from an exit code 128+n. */
  signal: z.string().nullable(),
  signalInferred: z.boolean(),
  /** `script`'s pid: the terminal. */
  pid: z.number().int().nullable(),
  /** The program's own pid; it leads the terminal's Unix session. */
  commandPid: z.number().int().nullable(),
  /** Members of the terminal session still alive after the program exited; null when there are none. */
  lingering: MemberList.nullable(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  timeoutSeconds: z.number().int().nullable(),
  timedOut: z.boolean(),
  notifyOnExit: z.boolean(),
  lineCount: z.number().int(),
});
export type PtyDescription = z.infer<typeof PtyDescription>;

export const SpawnResult = PtyDescription;
export type SpawnResult = z.infer<typeof SpawnResult>;

export const WriteResult = z.strictObject({
  id: z.string(),
  bytesWritten: z.number().int(),
  status: PtyStatus,
});
export type WriteResult = z.infer<typeof WriteResult>;

export const ListResult = z.strictObject({ ptys: z.array(PtyDescription).readonly() });
export type ListResult = z.infer<typeof ListResult>;

/** `survivors`: members still alive when the sweep reached its bound (null when the session is empty). */
export const KillResult = PtyDescription.extend({
  removed: z.boolean(),
  survivors: MemberList.nullable(),
  note: z.string().optional(),
});
export type KillResult = z.infer<typeof KillResult>;

/** One output line with its absolute number; `cutFrom` (its full length) when it was cut at MAX_LINE_CHARS. */
export const ReadLine = z.strictObject({
  line: z.number().int(),
  text: z.string(),
  cutFrom: z.number().int().optional(),
});
export type ReadLine = z.infer<typeof ReadLine>;

/** Every pty_read answer starts with where the PTY and its buffer stand. */
const readBase = {
  id: z.string(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  lingering: MemberList.nullable(),
  totalLines: z.number().int(),
  firstLine: z.number().int(),
  droppedLines: z.number().int(),
  retainedLines: z.number().int(),
};

/** Where the next page starts; `note` says how to reach the rest when no offset can (past MAX_READ_OFFSET). */
const continuation = {
  hasMore: z.boolean(),
  nextOffset: z.number().int().nullable(),
  note: z.string().optional(),
};

/** A page of rendered lines, from `offset` or the newest (`tail`). */
export const LinesRead = z.strictObject({
  ...readBase,
  offset: z.number().int(),
  returned: z.number().int(),
  lines: z.array(ReadLine).readonly(),
  ...continuation,
});
export type LinesRead = z.infer<typeof LinesRead>;

/** The raw terminal text (escape sequences and \r kept), paged by its own lines. */
export const RawRead = z.strictObject({
  ...readBase,
  raw: z.literal(true),
  rawLines: z.number().int(),
  offset: z.number().int(),
  returned: z.number().int(),
  text: z.string(),
  cutLines: z.number().int(),
  ...continuation,
});
export type RawRead = z.infer<typeof RawRead>;

/** The lines matching a pattern; `offset` is how many matches were skipped. */
export const MatchesRead = z.strictObject({
  ...readBase,
  pattern: z.string(),
  ignoreCase: z.boolean(),
  offset: z.number().int(),
  matches: z.number().int(),
  limitReached: z.boolean(),
  lines: z.array(ReadLine).readonly(),
  ...continuation,
});
export type MatchesRead = z.infer<typeof MatchesRead>;

export const ReadResult = z.union([MatchesRead, RawRead, LinesRead]);
export type ReadResult = z.infer<typeof ReadResult>;

/** The `pty.exit` message the owner session receives when a PTY with notifyOnExit ends. */
export const ExitEnvelope = z.strictObject({
  type: z.literal('pty.exit'),
  id: z.string(),
  description: z.string(),
  exitCode: z.number().int().nullable(),
  exitSignal: z.string().nullable(),
  exitSignalInferred: z.boolean(),
  status: PtyStatus,
  timeoutSeconds: z.number().int().nullable(),
  timedOut: z.boolean(),
  lingering: MemberList.nullable(),
  outputLines: z.number().int(),
  lastLine: z.string(),
});
export type ExitEnvelope = z.infer<typeof ExitEnvelope>;
