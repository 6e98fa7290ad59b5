import type { RE2JS } from 're2js';

/**
 * Runs a freshly compiled pattern on an empty line and on each text every match must contain, so that re2js builds
 * now, before anything is written, what it otherwise builds on the first line it tests: its automaton (the character
 * classes, 256 lookups), the start states and the states along those texts. A pattern with required literals is
 * only ever run on a line that holds one (the prefilter), so without this the first run, and with it all that
 * building, fell on the chunk that carried the answer: ~0.06 ms of the time from the program's output to the
 * answer of an interactive call, whose wait brings a new pattern every time (docs/perf-journal.md, thirtieth
 * session). The texts are the prefilter's, few and short (MAX_PREFILTER_LITERALS, MAX_PREFILTER_LITERAL_CHARS), and
 * the engine is linear in them.
 */
export function warmAutomaton(compiled: RE2JS, requiredTexts: readonly string[]): void {
  compiled.test('');
  for (const text of requiredTexts) compiled.test(text);
}
