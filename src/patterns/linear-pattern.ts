import { RE2JS, RE2JSException } from 're2js';
import { PtyError } from '../errors.js';
import { KEPT_PATTERN_SPECIMENS, MATCH_BLOCK_CHARS, MAX_PATTERN_CHARS } from '../limits.js';
import { Specimens } from '../shapes/specimens.js';
import { asciiLiteralTest, type LiteralFinder, literalFinder } from './literal-finder.js';
import { requiredLiterals } from './required-literals.js';
import { warmAutomaton } from './warm-automaton.js';

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
  /**
   * False only when no line of `bytes` (ASCII, one character each) can match: the pattern requires a literal that
   * is not in them. Looked for in the bytes, so a flood kept as bytes is scanned without making its text.
   */
  mayMatchAscii(bytes: Uint8Array): boolean;
  /** Whether `mayMatchAscii` can ever say false (the pattern requires a literal it can look for in bytes). */
  readonly rulesOutAscii: boolean;
  /**
   * The longest required literal's length less one: how far before new bytes a look for the literals must start to
   * find one that ends in them (0 when the pattern requires none).
   */
  readonly asciiLiteralOverlap: number;
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
  // An agent waits for the same prompt call after call: a kept pattern is immutable, and re2js keeps what its first
  // runs built (the compiled program, the DFA's states), so the same source and case come back without a compile.
  const kept = patternSpecimens.reuse((pattern) => pattern.source === source && pattern.ignoreCase === ignoreCase);
  if (kept !== undefined) return kept;
  // One program serves lines and blocks alike. MULTILINE changes only what ^ and $ match next to a `\n` inside the
  // text, and a line has none, so a line tests the same either way. Each compile was ~0.35 ms of the host's thread
  // in an interactive call, whose wait brings a new pattern every time (docs/perf-journal.md).
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.MULTILINE);
  } catch (err) {
    const reason = withoutFlagPrefix(err instanceof RE2JSException ? err.message : String(err), ignoreCase);
    throw new PtyError(
      'invalid_input',
      `${field}: not a valid ${LINEAR_PATTERN_SYNTAX} pattern: ${reason}. Nothing was done.`,
    );
  }
  const required = requiredLiterals(source, ignoreCase);
  warmAutomaton(compiled, required?.literals ?? []);
  const finder = required === undefined ? undefined : literalFinder(required);
  const test =
    finder === undefined
      ? (line: string): boolean => compiled.test(line)
      : (line: string): boolean => finder.find(line, 0) !== -1 && compiled.test(line);
  const lineByLine = TEXT_ANCHOR.test(source);
  const inAscii = required === undefined ? undefined : asciiLiteralTest(required);
  const pattern: LinearPattern = {
    source,
    ignoreCase,
    test,
    mayMatchAscii: (bytes) => inAscii === undefined || inAscii(bytes),
    rulesOutAscii: inAscii !== undefined,
    asciiLiteralOverlap: Math.max(0, ...(required?.literals ?? []).map((literal) => literal.length - 1)),
    matchingLines: (text) =>
      lineByLine ? eachLineTested(text, test, finder) : joinedThenLines(text, compiled, test, finder),
  };
  keepSpecimen(pattern);
  return pattern;
}

/**
 * re2js writes the flags it was given into the expression it parses (`(?m)(?i)`) and quotes that in its errors: a
 * model should see its own pattern there, not a prefix it never wrote.
 */
function withoutFlagPrefix(reason: string, ignoreCase: boolean): string {
  return reason.replace(`\`(?m)${ignoreCase ? '(?i)' : ''}`, '`');
}

/**
 * The last few patterns compiled, each run once on a line and on a block (and its automaton warmed, warmAutomaton) so
 * that re2js has built what it builds on first use: their hidden classes then outlive the wait or the PTY that used
 * them (see Specimens), and the same pattern asked for again is one of them. A pattern holds its source and re2js's
 * compiled program and state cache, which re2js bounds (0.1–0.6 MiB measured after pathological patterns over 1.2 MB
 * of text), never output.
 */
export const patternSpecimens = new Specimens<LinearPattern>(KEPT_PATTERN_SPECIMENS);

function keepSpecimen(pattern: LinearPattern): void {
  pattern.test('');
  pattern.matchingLines('\n\n').next();
  patternSpecimens.keep(pattern);
}

/**
 * The text in blocks of about MATCH_BLOCK_CHARS whole lines, each tested in one engine call; only a block that
 * matches is tested line by line. A line that matches alone matches in its block (with ^ and $ at line ends, and
 * a line's ends look to \b like the text's), so no line is missed; a block may match only across lines (\s
 * matches a newline), and its lines then all fail alone. re2js's `test` runs its fast matcher; asking where a
 * match starts (`find`) ran 15x slower on a case-insensitive alternation, for every chunk that did not match.
 * With a `finder`, a block starts only at a line that holds a required literal: a flood without one costs one
 * string search. Without one, every block is tested (the bench's `scan` suite measures both).
 */
export function* joinedThenLines(
  text: string,
  multiline: RE2JS,
  test: (line: string) => boolean,
  finder: LiteralFinder | undefined,
): Generator<LineSpan> {
  // One line (an interactive answer, mostly): tested alone, so only one engine warms up for a fresh pattern.
  if (text.indexOf('\n') === text.length - 1) {
    if (text.length > 0 && test(text.slice(0, -1))) yield { start: 0, end: text.length - 1 };
    return;
  }
  for (let block = candidateLine(text, 0, finder); block !== -1 && block < text.length; ) {
    const last = text.indexOf('\n', Math.min(block + MATCH_BLOCK_CHARS, text.length) - 1);
    const blockEnd = last === -1 ? text.length : last + 1;
    if (multiline.test(blockEnd - block === text.length ? text : text.slice(block, blockEnd))) {
      for (let start = block, end = text.indexOf('\n', start); end !== -1 && end < blockEnd; ) {
        if (test(text.slice(start, end))) yield { start, end };
        start = end + 1;
        end = text.indexOf('\n', start);
      }
    }
    block = candidateLine(text, blockEnd, finder);
  }
}

function* eachLineTested(
  text: string,
  test: (line: string) => boolean,
  finder: LiteralFinder | undefined,
): Generator<LineSpan> {
  for (let start = candidateLine(text, 0, finder); start !== -1; ) {
    const end = text.indexOf('\n', start);
    if (end === -1) return;
    if (test(text.slice(start, end))) yield { start, end };
    start = candidateLine(text, end + 1, finder);
  }
}

/**
 * The start of the first line at or after the line start `from` that may match: with a finder, the line of the next
 * required literal (-1 when there is none); without one, `from` itself.
 */
function candidateLine(text: string, from: number, finder: LiteralFinder | undefined): number {
  if (finder === undefined) return from;
  const at = finder.find(text, from);
  return at === -1 ? -1 : text.lastIndexOf('\n', at) + 1;
}
