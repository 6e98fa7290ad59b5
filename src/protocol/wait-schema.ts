import { z } from 'zod';
import {
  DEFAULT_WAIT_TIMEOUT_MS,
  MAX_PATTERN_CHARS,
  MAX_WAIT_TIMEOUT_MS,
  MAX_WATCH_RULES,
  MIN_QUIET_MS,
  MIN_WAIT_TIMEOUT_MS,
} from '../limits.js';
import { refuseLoneSurrogate } from './well-formed.js';
import { givenValue, wholeNumber } from './whole-number.js';

const WAIT_KEYS = 'pattern, ignoreCase, quietMs, timeoutMs';

const linearPattern = (what: string) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_PATTERN_CHARS, `at most ${MAX_PATTERN_CHARS} characters`)
    .superRefine(refuseLoneSurrogate)
    .describe(
      `${what} RE2 syntax (like JavaScript regex without backreferences or lookaround), matched against each clean line.`,
    );

/** The `wait` of pty_spawn, pty_write and pty_read: strict, so a misspelt key is refused rather than ignored. */
export const WaitArg = z
  .strictObject(
    {
      pattern: linearPattern(
        'Return as soon as a line that arrives matches, the unfinished last line included (prompts like ">>> " or "[y/N] " end without a newline); while a full-screen program (vim, less) is on the alternate screen, a screen row that changed during the call (result: screenMatch).',
      ).optional(),
      ignoreCase: z.boolean().optional().describe('With pattern: match case-insensitively.'),
      quietMs: wholeNumber(MIN_QUIET_MS, MAX_WAIT_TIMEOUT_MS, { unit: ' ms' })
        .optional()
        .describe(
          `Return once no output has come for this long after some output came (at least ${MIN_QUIET_MS}). With no output at all, only the timeout ends the wait.`,
        ),
      timeoutMs: wholeNumber(MIN_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS, {
        unit: ' ms',
        overMax: 'that is the longest a call may wait',
      })
        .optional()
        .describe(`Give up after this long (default ${DEFAULT_WAIT_TIMEOUT_MS}, at most ${MAX_WAIT_TIMEOUT_MS}).`),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; a wait takes ${WAIT_KEYS}`
          : undefined,
    },
  )
  .optional()
  .describe(
    'Wait in this same call for what you expect; the result says why it returned (reason: match, quiet, exit, timeout, aborted, killed, owner_deleted, closed) and carries the output that arrived meanwhile, so no pty_read is needed. An exit always ends the wait.',
  );

export const WatchRule = z.strictObject(
  {
    pattern: linearPattern('Send a pty.match message to this session when a finished line matches;'),
    ignoreCase: z.boolean().optional().describe('Match case-insensitively.'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; a watch rule takes pattern, ignoreCase`
        : undefined,
  },
);

export const WatchArg = z
  .array(WatchRule)
  .min(1, 'give at least one rule, or leave watch out')
  .max(MAX_WATCH_RULES, `at most ${MAX_WATCH_RULES} rules`)
  .optional()
  .describe(
    'Rules that wake this session with a pty.match message when a line of output matches (e.g. "listening on", "ERROR", "Tests: .* failed"), instead of polling.',
  );

/**
 * A read cursor: `L<n>`, where n is the absolute number of the first line the reader has not seen finished, and
 * `.<m>` after it when that line was unfinished and not empty: m names what it held then (CursorMarks). A string
 * rather than a bare number so that it is not mistaken for pty_read's `offset` (an index into the retained lines).
 */
export const CURSOR_PATTERN = /^L[1-9][0-9]{0,15}(\.[1-9][0-9]{0,15})?$/;

const notACursor = (issue: { readonly input?: unknown }) =>
  `must be a cursor from an earlier result, like "L42" (L and a line number from 1), got ${givenValue(issue.input)}`;

export const CursorArg = z
  .string({ error: notACursor })
  .regex(CURSOR_PATTERN, { error: notACursor })
  .optional()
  .describe('The cursor of an earlier result: return only the lines after it (the unfinished last line included).');

export type WaitInput = z.infer<typeof WaitArg>;
export type WatchInput = z.infer<typeof WatchArg>;
