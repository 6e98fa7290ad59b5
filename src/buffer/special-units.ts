/** The units the line renderer's fast paths look for, found by native search. */

/**
 * What plain text stops at: controls, and surrogates (their pairing is checked one by one). `\n` is looked for
 * apart (with indexOf, a memchr), so this is every such unit but `\n`. A tab is text to a line (kept as `\t`,
 * as a terminal's cells cannot say): stopping at it cost a line with one 5x a line without.
 */
export const SPECIAL_BUT_LF = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]/g;

export const indexOrEnd = (index: number, end: number): number => (index < 0 ? end : index);

/** Index of the next match of a one-unit global `pattern` at or after `from`, or the end. `test` allocates nothing. */
export function nextMatch(pattern: RegExp, input: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(input) ? pattern.lastIndex - 1 : input.length;
}
