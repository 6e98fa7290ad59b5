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
  /**
   * The lines of `text` (whole lines, each ended by `\n`) that the pattern matches alone, in order, as [start, end)
   * offsets without the `\n`. A text with no match costs one engine pass, and no string per line is made.
   */
  matchingLines(text: string): Generator<LineSpan>;
}

/** A line of a text, as offsets: `text.slice(start, end)`; `end` is at its `\n`. */
export interface LineSpan {
  readonly start: number;
  readonly end: number;
}

/** \A and \z mean the text's own ends even in multi-line mode: such a pattern is only ever tried line by line. */
const TEXT_ANCHOR = /\\[Az]/;

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
  const lineByLine = TEXT_ANCHOR.test(source);
  return {
    source,
    ignoreCase,
    test,
    matchingLines: (text) => (lineByLine ? eachLineTested(text, test) : joinedThenLines(text, multiline, test)),
  };
}

/**
 * One engine pass over the whole text, and a line is tested alone only where a match starts. A line that
 * matches alone matches at the same place in the text (with ^ and $ at line ends, and a line's ends look to \b
 * like the text's), so no line before the leftmost match can match alone; a match there may span lines (\s
 * matches a newline), so its line is tested alone, and the search goes on after it. 2-byte lines cost one native
 * prefilter pass instead of a string and an engine call per line.
 */
function* joinedThenLines(text: string, multiline: RE2JS, test: (line: string) => boolean): Generator<LineSpan> {
  // One line (an interactive answer, mostly): tested alone, so only one engine warms up for a fresh pattern.
  if (text.indexOf('\n') === text.length - 1) {
    if (text.length > 0 && test(text.slice(0, -1))) yield { start: 0, end: text.length - 1 };
    return;
  }
  const matcher = multiline.matcher(text);
  for (let from = 0; from < text.length && matcher.find(from); ) {
    const at = matcher.start();
    const start = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    const end = text.indexOf('\n', at);
    if (end === -1) return;
    if (test(text.slice(start, end))) yield { start, end };
    from = end + 1;
  }
}

function* eachLineTested(text: string, test: (line: string) => boolean): Generator<LineSpan> {
  for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    if (test(text.slice(start, end))) yield { start, end };
  }
}
