import { z } from 'zod';

/**
 * What the model reads back from each tool, and the `pty.exit` envelope it receives: one named schema per shape,
 * so the core's builders, the smoke run, the bench and the tests agree on one definition. The objects are strict:
 * a field the core adds without declaring it here fails the tests that parse results, instead of going unnoticed.
 */

export const PtyStatus = z.enum(['starting', 'running', 'exited', 'killed', 'timeout']);
export type PtyStatus = z.infer<typeof PtyStatus>;

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

/** A terminal's size in character cells. */
export const TerminalSize = z.strictObject({ rows: z.number().int(), cols: z.number().int() });
export type TerminalSize = z.infer<typeof TerminalSize>;

export const WriteResult = z.strictObject({
  id: z.string(),
  bytesWritten: z.number().int(),
  status: PtyStatus,
  /** The terminal's size after a resize asked for in the same call; absent when none was. */
  size: TerminalSize.optional(),
});
export type WriteResult = z.infer<typeof WriteResult>;

export const ListResult = z.strictObject({ ptys: z.array(PtyDescription).readonly() });
export type ListResult = z.infer<typeof ListResult>;

export const KillResult = PtyDescription.extend({ removed: z.boolean() });
export type KillResult = z.infer<typeof KillResult>;

/** One output line with its absolute number; `cutFrom` (its full length) when it was cut at MAX_LINE_CHARS. */
export const ReadLine = z.strictObject({
  line: z.number().int(),
  text: z.string(),
  cutFrom: z.number().int().optional(),
});
export type ReadLine = z.infer<typeof ReadLine>;

/** What a terminal shows now: pty_read's `screen`. */
export const ScreenView = z.strictObject({
  /** One string per row, top to bottom, trailing blanks trimmed; a wide character takes one string position. */
  rows: z.array(z.string()).readonly(),
  size: TerminalSize,
  /** 0-based indexes into `rows` and into the row's columns. */
  cursor: z.strictObject({ row: z.number().int(), col: z.number().int(), visible: z.boolean() }),
  alternateScreen: z.boolean(),
  /** The window title the program set, '' when none. */
  title: z.string(),
  /** Output the screen depends on was dropped before it was read: parts drawn earlier may be missing. */
  incomplete: z.boolean(),
  /** Says what `incomplete` means for the model; present exactly when it is true. */
  note: z.string().optional(),
});
export type ScreenView = z.infer<typeof ScreenView>;

/**
 * A lines, raw or pattern read also carries the screen while a full-screen program is on the alternate screen
 * (unless the read said `screen: false`), with a note on how to read the two.
 */
const alongsideScreen = {
  screen: ScreenView.optional(),
  screenNote: z.string().optional(),
};

/** Every pty_read answer starts with where the PTY and its buffer stand. */
const readBase = {
  id: z.string(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
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
  ...alongsideScreen,
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
  ...alongsideScreen,
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
  ...alongsideScreen,
});
export type MatchesRead = z.infer<typeof MatchesRead>;

/** `screen: true`: the visible screen alone, with where the PTY stands. */
export const ScreenRead = z.strictObject({
  id: z.string(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  totalLines: z.number().int(),
  screen: ScreenView,
});
export type ScreenRead = z.infer<typeof ScreenRead>;

export const ReadResult = z.union([ScreenRead, MatchesRead, RawRead, LinesRead]);
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
  outputLines: z.number().int(),
  lastLine: z.string(),
});
export type ExitEnvelope = z.infer<typeof ExitEnvelope>;
