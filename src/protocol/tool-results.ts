import { z } from 'zod';

/**
 * What the model reads back from each tool, and the `pty.exit` and `pty.match` envelopes it receives: one named schema per shape,
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

/** A terminal's size in character cells. */
export const TerminalSize = z.strictObject({ rows: z.number().int(), cols: z.number().int() });
export type TerminalSize = z.infer<typeof TerminalSize>;

export const ListResult = z.strictObject({ ptys: z.array(PtyDescription).readonly() });
export type ListResult = z.infer<typeof ListResult>;

/** `survivors`: members still alive when the sweep reached its bound (null when the session is empty). */
export const KillResult = PtyDescription.extend({
  removed: z.boolean(),
  survivors: MemberList.nullable(),
  note: z.string().optional(),
});
export type KillResult = z.infer<typeof KillResult>;

/**
 * One output line with its absolute number; `cutFrom` (its full length) when it was cut at MAX_LINE_CHARS;
 * `headDropped` when the line was longer than the buffer's bound, which kept only its end: how many characters went
 * from its head, so `text` starts that far into the line as printed.
 */
export const ReadLine = z.strictObject({
  line: z.number().int(),
  text: z.string(),
  cutFrom: z.number().int().optional(),
  headDropped: z.number().int().optional(),
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
  /** Output the screen depends on was dropped before it was read: parts drawn earlier may be missing or misplaced. */
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

/** A line of a wait's or a cursor read's result; the unfinished last line (a prompt, a progress bar) says so. */
export const ResultLine = ReadLine.extend({ unfinished: z.literal(true).optional() });
export type ResultLine = z.infer<typeof ResultLine>;

/** Why a wait returned. */
export const WaitReason = z.enum(['match', 'quiet', 'exit', 'timeout', 'aborted', 'killed', 'owner_deleted', 'closed']);
export type WaitReason = z.infer<typeof WaitReason>;

/**
 * The line a wait's pattern matched, with its absolute number; `unfinished` when it is the unfinished last line;
 * `cutFrom` (its full length) when it was cut at MAX_LINE_CHARS, as the same line is in `lines`.
 */
export const WaitMatch = z.strictObject({
  line: z.number().int(),
  text: z.string(),
  cutFrom: z.number().int().optional(),
  headDropped: z.number().int().optional(),
  unfinished: z.boolean(),
});
export type WaitMatch = z.infer<typeof WaitMatch>;

/**
 * The screen row a wait's pattern matched while a full-screen program showed on the alternate screen, whose drawing
 * the lines leave out: 0-based, as in `screen.rows`.
 */
export const ScreenRowMatch = z.strictObject({ screenRow: z.number().int(), text: z.string() });

/** A read cursor, `L<n>`: pass it to pty_read to get only what came after. */
const cursor = z.string();

/** What a wait adds to a pty_spawn, pty_write or pty_read result. */
const waitReport = {
  reason: WaitReason,
  waitedMs: z.number().int(),
  match: WaitMatch.optional(),
  /** What matched instead when it was a row of a full-screen program's screen (reason `match`, no `match`). */
  screenMatch: ScreenRowMatch.optional(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  /** The output that arrived during the call (its newest lines), the unfinished line marked. */
  lines: z.array(ResultLine).readonly(),
  /** Lines that arrived but are not in `lines`; pty_read from `outputCursor` has them. */
  omittedLines: z.number().int().optional(),
  outputCursor: cursor.optional(),
  /** Lines that arrived during the call and were dropped from the buffer by a flood before the call ended. */
  droppedLines: z.number().int().optional(),
  cursor,
  /** The screen, while a full-screen program is on the alternate screen when the wait ends. */
  ...alongsideScreen,
};
export const WaitReport = z.strictObject(waitReport);
export type WaitReport = z.infer<typeof WaitReport>;

/** pty_spawn with a wait: the PTY, and what the wait saw of its first output. */
export const SpawnWaited = PtyDescription.extend(waitReport);
export type SpawnWaited = z.infer<typeof SpawnWaited>;

/** pty_spawn without a wait: the PTY, and a cursor at its first line (a wait from it counts all the output). */
export const SpawnPlain = PtyDescription.extend({ cursor });
export type SpawnPlain = z.infer<typeof SpawnPlain>;

export const SpawnResult = z.union([SpawnWaited, SpawnPlain]);
export type SpawnResult = z.infer<typeof SpawnResult>;

export const WritePlain = z.strictObject({
  id: z.string(),
  bytesWritten: z.number().int(),
  status: PtyStatus,
  /** The terminal's size after a resize asked for in the same call; absent when none was. */
  size: TerminalSize.optional(),
  /** Where the output stood just before the write: pty_read {cursor, wait} from it waits for the answer. */
  cursor,
});
export type WritePlain = z.infer<typeof WritePlain>;

/** pty_write with a wait: what was written, and the answer that came. */
export const WriteWaited = WritePlain.extend({ ...waitReport });
export type WriteWaited = z.infer<typeof WriteWaited>;

export const WriteResult = z.union([WriteWaited, WritePlain]);
export type WriteResult = z.infer<typeof WriteResult>;

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

/**
 * Where the next page starts; `note` says how to reach the rest when no offset can (past MAX_READ_OFFSET);
 * `cursor` is past the last finished line handed out (or the end of the output, for raw and pattern reads).
 */
const continuation = {
  hasMore: z.boolean(),
  nextOffset: z.number().int().nullable(),
  note: z.string().optional(),
  cursor,
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
  /** Raw characters written before the newest MAX_RAW_CHARS that are kept (absent when none were dropped). */
  droppedChars: z.number().int().optional(),
  /** The page starts with raw line 1, and that line is the end of a line whose start was among the dropped. */
  firstLineCut: z.literal(true).optional(),
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

/** Where a cursor read or a waiting read stands: the buffer's first and total lines. */
const afterBase = {
  id: z.string(),
  totalLines: z.number().int(),
  firstLine: z.number().int(),
};

/** What a cursor read adds: `missedLines` after the cursor were dropped from the buffer before they were read (`note` says so). */
const afterCursor = {
  hasMore: z.boolean(),
  missedLines: z.number().int().optional(),
  note: z.string().optional(),
};

/** pty_read with a cursor: only the lines after it, the unfinished last line again. */
export const CursorRead = z.strictObject({
  ...afterBase,
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  lines: z.array(ResultLine).readonly(),
  ...afterCursor,
  cursor,
});
export type CursorRead = z.infer<typeof CursorRead>;

/** pty_read with a wait: what arrived during the call, or with a cursor too, the lines after it. */
export const WaitedRead = z.strictObject({
  ...afterBase,
  ...waitReport,
  hasMore: afterCursor.hasMore.optional(),
  missedLines: afterCursor.missedLines,
  note: afterCursor.note,
});
export type WaitedRead = z.infer<typeof WaitedRead>;

/** `screen: true`: the visible screen alone, with where the PTY stands. */
export const ScreenRead = z.strictObject({
  id: z.string(),
  status: PtyStatus,
  exitCode: z.number().int().nullable(),
  totalLines: z.number().int(),
  screen: ScreenView,
});
export type ScreenRead = z.infer<typeof ScreenRead>;

export const ReadResult = z.union([ScreenRead, MatchesRead, RawRead, LinesRead, CursorRead, WaitedRead]);
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

/** The `pty.match` message the owner session receives when a finished line matches one of the PTY's watch rules. */
export const MatchEnvelope = z.strictObject({
  type: z.literal('pty.match'),
  id: z.string(),
  description: z.string(),
  pattern: z.string(),
  line: z.number().int(),
  text: z.string(),
  /** Further matches coalesced into this message (at most one per PTY per MATCH_NOTIFY_INTERVAL_MS). */
  moreMatches: z.number().int(),
  status: PtyStatus,
});
export type MatchEnvelope = z.infer<typeof MatchEnvelope>;

/** Every message a PTY sends its owner session. */
export const PtyEnvelope = z.discriminatedUnion('type', [ExitEnvelope, MatchEnvelope]);
export type PtyEnvelope = z.infer<typeof PtyEnvelope>;
