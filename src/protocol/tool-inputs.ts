import { z } from 'zod';
import {
  DEFAULT_COLS,
  DEFAULT_READ_LIMIT,
  DEFAULT_ROWS,
  MAX_ARGS,
  MAX_DESCRIPTION_CHARS,
  MAX_INPUT_ITEMS,
  MAX_KEY_REPEAT,
  MAX_PATTERN_CHARS,
  MAX_READ_LIMIT,
  MAX_READ_OFFSET,
  MAX_TERMINAL_DIMENSION,
  MAX_TIMEOUT_SECONDS,
  MAX_TITLE_CHARS,
  MIN_TERMINAL_DIMENSION,
  MIN_TIMEOUT_SECONDS,
} from '../limits.js';
import { CursorArg, WaitArg, WatchArg } from './wait-schema.js';
import { refuseLoneSurrogate } from './well-formed.js';
import { wholeNumber } from './whole-number.js';

/** pty_ + 8 hex characters: anything else cannot name a PTY, so it is refused before any lookup. */
export const PtyId = z
  .string()
  .regex(/^pty_[0-9a-f]{8}$/, 'must be a PTY id like "pty_1a2b3c4d", as returned by pty_spawn or pty_list')
  .describe('The PTY id returned by pty_spawn (e.g. "pty_1a2b3c4d").');

/** Rows or columns of a terminal, in the bounds pty_spawn and a resize share. */
const terminalDimension = (what: string) => wholeNumber(MIN_TERMINAL_DIMENSION, MAX_TERMINAL_DIMENSION).describe(what);

export const SpawnArgs = {
  command: z
    .string()
    .min(1, 'must name the program to run')
    .describe('The program to run, e.g. "python3", "npm", "bash". Not a shell line: pass its arguments in `args`.'),
  args: z
    .array(z.string())
    .max(MAX_ARGS, `at most ${MAX_ARGS} arguments`)
    .optional()
    .describe('Arguments, each passed to the program byte for byte (no shell expansion, no quoting needed).'),
  workdir: z
    .string()
    .optional()
    .describe(
      "Working directory (absolute, or relative to the project). Default: the project directory. Outside the project needs the user's external_directory permission.",
    ),
  title: z
    .string()
    .max(MAX_TITLE_CHARS, `at most ${MAX_TITLE_CHARS} characters`)
    .superRefine(refuseLoneSurrogate)
    .optional()
    .describe('A short title for pty_list.'),
  description: z
    .string()
    .min(1, 'must say what the PTY is for')
    .max(MAX_DESCRIPTION_CHARS, `at most ${MAX_DESCRIPTION_CHARS} characters`)
    .superRefine(refuseLoneSurrogate)
    .describe('What this PTY is for, in a few words (shown to the user and in the exit notification).'),
  timeoutSeconds: wholeNumber(MIN_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS)
    .optional()
    .describe(
      `End the PTY after this many seconds (${MIN_TIMEOUT_SECONDS}–${MAX_TIMEOUT_SECONDS}); its status becomes "timeout".`,
    ),
  notifyOnExit: z
    .boolean()
    .optional()
    .describe(
      'When true, a pty.exit message reaches this session when the program exits, so there is no need to check on it.',
    ),
  rows: terminalDimension(`Terminal rows (default ${DEFAULT_ROWS}).`).optional(),
  cols: terminalDimension(`Terminal columns (default ${DEFAULT_COLS}).`).optional(),
  wait: WaitArg,
  watch: WatchArg,
};

/**
 * `times` repeats a key; on a text item it was silently ignored ({text: "a", times: 5} typed one "a"). Refused rather
 * than applied: a `times` misplaced on the text beside a key would then type a command line many times over.
 */
function refuseTimesOnText(
  item: { text?: string | undefined; key?: string | undefined; times?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (item.text === undefined || item.key !== undefined || item.times === undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: ['times'],
    input: item.times,
    message: `applies to a key only, and this item is text (typed once): write the text out as many times as it should be typed, or repeat a key with { "key": "Enter", "times": ${item.times} }`,
  });
}

export const WriteArgs = {
  id: PtyId,
  data: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .describe(
      'Bytes to type. Escapes: \\n (Enter), \\r, \\t, \\xNN (one byte, e.g. \\x03 = Ctrl-C, \\x04 = Ctrl-D/EOF), \\uNNNN, \\\\. Any other backslash sequence is an error.',
    ),
  wait: WaitArg,
  input: z
    .array(
      z
        .strictObject({
          text: z
            .string()
            .optional()
            .describe('Text to type, exactly as given: no escapes (a backslash is typed as one).'),
          key: z.string().optional().describe('A key by name: Enter, Esc, Tab, Up, C-c, M-x, F5 ...'),
          times: wholeNumber(1, MAX_KEY_REPEAT)
            .optional()
            .describe(`With key only: press the key this many times (1–${MAX_KEY_REPEAT}).`),
        })
        .superRefine(refuseTimesOnText),
    )
    .max(MAX_INPUT_ITEMS, `at most ${MAX_INPUT_ITEMS} items`)
    .optional()
    .describe(
      'Instead of data: text and named keys, typed in order, e.g. [{"key":"Esc"},{"text":":wq"},{"key":"Enter"}]. Each item has "text" or "key", never both.',
    ),
  resize: z
    .strictObject({ rows: terminalDimension('New terminal rows.'), cols: terminalDimension('New terminal columns.') })
    .optional()
    .describe('Change the terminal size first (the program gets SIGWINCH); needs no other input.'),
};

export const ReadArgs = {
  id: PtyId,
  offset: wholeNumber(0, MAX_READ_OFFSET, { overMax: 'use tail to read the newest lines, or a narrower pattern' })
    .optional()
    .describe(
      '0-based index into the retained lines to start at (default 0); with pattern, how many matches to skip. Use nextOffset from the previous read to page on.',
    ),
  limit: wholeNumber(1, MAX_READ_LIMIT)
    .optional()
    .describe(
      `How many lines (default ${DEFAULT_READ_LIMIT}, at most ${MAX_READ_LIMIT}); with pattern, how many matches.`,
    ),
  tail: z
    .boolean()
    .optional()
    .describe('Read the newest `limit` lines (the end of the output) instead of paging from `offset`.'),
  pattern: z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_PATTERN_CHARS, `at most ${MAX_PATTERN_CHARS} characters`)
    .superRefine(refuseLoneSurrogate)
    .optional()
    .describe('POSIX extended regular expression: return only matching lines (with their line numbers).'),
  ignoreCase: z.boolean().optional().describe('With pattern: match case-insensitively.'),
  raw: z
    .boolean()
    .optional()
    .describe(
      'Return the raw terminal text (escape sequences and carriage returns kept) instead of the cleaned lines.',
    ),
  cursor: CursorArg,
  wait: WaitArg,
  screen: z
    .boolean()
    .optional()
    .describe(
      'true: return the visible screen (rows, cursor, title) as a terminal shows it now, instead of lines. false: lines only. Default: lines, plus the screen while a full-screen program (vim, less, top) is on the alternate screen.',
    ),
};

export const ListArgs = {};

export const KillArgs = {
  id: PtyId,
  cleanup: z
    .boolean()
    .optional()
    .describe('Also remove the PTY and its output (default false: it stays readable in pty_read and pty_list).'),
};

export type SpawnInput = z.infer<z.ZodObject<typeof SpawnArgs>>;
export type WriteInput = z.infer<z.ZodObject<typeof WriteArgs>>;
export type ReadInput = z.infer<z.ZodObject<typeof ReadArgs>>;
export type ListInput = z.infer<z.ZodObject<typeof ListArgs>>;
export type KillInput = z.infer<z.ZodObject<typeof KillArgs>>;
