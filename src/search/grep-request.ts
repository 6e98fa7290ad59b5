import { PtyError } from '../errors.js';
import { MAX_PATTERN_CHARS } from '../limits.js';
import { grepMisreading } from './grep-misreadings.js';

export interface GrepRequest {
  /** The text searched, lines separated by `\n`; in parts, joined in order, none splitting a surrogate pair. */
  readonly text: string | readonly string[];
  /** A POSIX extended regular expression, as `grep -E` reads it. */
  readonly pattern: string;
  readonly ignoreCase: boolean;
  /** grep stops after this many matching lines (`-m`). */
  readonly maxMatches: number;
  /** Aborting settles the search at once when queued, or after its grep has been killed when running. */
  readonly signal?: AbortSignal;
}

export interface GrepMatch {
  /** grep's own 1-based line number within `text`; the caller maps it to its numbering. */
  readonly lineNumber: number;
  readonly text: string;
}

/**
 * Refuses, before any process starts, what grep would misread: a NUL cannot pass through argv, grep -E
 * takes a newline as "or" between two patterns, which would silently widen the search, and the syntax of other
 * dialects it reads its own way, such as `\d` (a plain "d") or `(?i)` (grep-misreadings.ts).
 */
export function validateGrepRequest(request: GrepRequest): void {
  const { pattern, maxMatches } = request;
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new PtyError(
      'invalid_input',
      `the search pattern is ${pattern.length} characters, over the limit of ${MAX_PATTERN_CHARS} (MAX_PATTERN_CHARS); use a shorter pattern.`,
    );
  }
  if (pattern.includes('\0')) {
    throw new PtyError(
      'invalid_input',
      'the search pattern contains a NUL character, which grep cannot receive; remove it.',
    );
  }
  if (pattern.includes('\n')) {
    throw new PtyError(
      'invalid_input',
      'the search pattern contains a newline; lines are searched one at a time, so a pattern cannot span lines. ' +
        'Use a pattern for one line (alternatives as a|b).',
    );
  }
  const misread = grepMisreading(pattern);
  if (misread !== undefined) {
    throw new PtyError(
      'invalid_input',
      `the search pattern ${JSON.stringify(pattern)}: ${misread}. Nothing was searched.`,
    );
  }
  if (!Number.isSafeInteger(maxMatches) || maxMatches < 1) {
    throw new PtyError('invalid_input', `maxMatches must be a whole number of at least 1, got ${maxMatches}.`);
  }
}

/** `--` ends the options, so a pattern starting with `-` is still a pattern. */
export function grepArguments(request: GrepRequest): string[] {
  const flags = request.ignoreCase ? ['-i'] : [];
  return ['-a', '-m', String(request.maxMatches), '-nE', ...flags, '--', request.pattern];
}
