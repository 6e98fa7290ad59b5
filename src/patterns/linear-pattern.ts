import { RE2JS, RE2JSException } from 're2js';
import { PtyError } from '../errors.js';
import { MAX_PATTERN_CHARS } from '../limits.js';

/**
 * A pattern that runs on live output, in the host's own thread, after every chunk: it must never backtrack.
 * RE2 (here re2js, a pure-JS port) matches in time linear in the text, whatever the pattern; a JavaScript
 * RegExp such as `(a+)+$` can take minutes on one line. The grep workers stay for searching the buffer, where a
 * pattern runs once, in a process that can be killed.
 */
export interface LinearPattern {
  readonly source: string;
  readonly ignoreCase: boolean;
  /** Whether the pattern matches anywhere in `line`. */
  test(line: string): boolean;
  /** Index of the first of `lines` the pattern matches, or -1. */
  firstMatch(lines: readonly string[]): number;
}

/** The syntax, as the tool descriptions state it. */
export const LINEAR_PATTERN_SYNTAX = 'RE2 syntax (like JavaScript/PCRE without backreferences or lookaround)';

/**
 * Compiles `source` once, before anything is written; an invalid or too long pattern is refused with RE2's own
 * reason. `field` names the input in the error ("wait.pattern", "watch[0].pattern").
 */
export function compileLinearPattern(field: string, source: string, ignoreCase = false): LinearPattern {
  if (source.length === 0) throw new PtyError('invalid_input', `${field}: must not be empty. Nothing was done.`);
  if (source.length > MAX_PATTERN_CHARS) {
    throw new PtyError(
      'limit',
      `${field}: ${source.length} characters, but a pattern may have at most ${MAX_PATTERN_CHARS}. Nothing was done.`,
    );
  }
  let compiled: RE2JS;
  let multiline: RE2JS;
  try {
    compiled = RE2JS.compile(source, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    multiline = RE2JS.compile(source, (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.MULTILINE);
  } catch (err) {
    const reason = err instanceof RE2JSException ? err.message : String(err);
    throw new PtyError(
      'invalid_input',
      `${field}: not a valid ${LINEAR_PATTERN_SYNTAX} pattern: ${reason}. Nothing was done.`,
    );
  }
  const test = (line: string): boolean => compiled.test(line);
  return {
    source,
    ignoreCase,
    test,
    // One pass over the lines joined, then per line only if it matched: a line that matches alone also matches in
    // the joined text (with ^ and $ at line ends), so no match there means no line matches; a match there may
    // span lines (\s matches a newline), so the lines are then tested one by one. Many short lines cost one
    // engine call instead of one each (2-byte lines: 2x faster).
    firstMatch: (lines) => (lines.length === 0 || !multiline.test(lines.join('\n')) ? -1 : lines.findIndex(test)),
  };
}
