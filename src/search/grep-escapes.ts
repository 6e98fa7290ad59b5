/**
 * Backslash escapes that `grep -E` (POSIX extended regex, GNU grep) would read otherwise than a model means them.
 * GNU grep takes `\` before a letter it gives no meaning (`\d`, `\t`, `\x41`) as that letter alone and says nothing:
 * `\d+` then finds lines with a "d", not numbers, and the search answers wrongly instead of failing. Inside a bracket
 * expression a backslash is itself, so `[\d.]` is a backslash, a "d" or a dot. Such a pattern is refused with what to
 * write instead; every other pattern is passed as it is.
 */

/** Letters and digits after `\` that GNU grep -E gives a meaning: word, space and word-boundary classes, back-references. */
const GREP_ESCAPES = new Set(['w', 'W', 's', 'S', 'b', 'B', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

/** What to write for escapes other regex dialects have and grep -E does not. */
const INSTEAD: Readonly<Record<string, string>> = {
  d: '[0-9]',
  D: '[^0-9]',
  h: '[[:blank:]]',
  t: 'a tab character itself, or [[:blank:]]',
  n: 'nothing: lines are searched one at a time, so no line holds a newline',
  r: 'nothing: output lines hold no carriage return',
  x: 'the character itself',
  u: 'the character itself',
};

/** Why `pattern` would be misread by grep -E, and what to write instead; undefined when it would not. */
export function misreadEscape(pattern: string): string | undefined {
  let inBracket = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (inBracket) {
      if (c === '[' && (pattern[i + 1] === ':' || pattern[i + 1] === '.' || pattern[i + 1] === '=')) {
        // A class like [:digit:] inside the brackets: skip to its own end.
        const end = pattern.indexOf(`${pattern[i + 1]}]`, i + 2);
        if (end === -1) return undefined;
        i = end + 1;
      } else if (c === ']') {
        inBracket = false;
      } else if (c === '\\' && pattern[i + 1] !== '\\' && i + 1 < pattern.length) {
        const escaped = pattern.slice(i, i + 2);
        return `\`${escaped}\` inside [...]: grep -E reads a backslash there as itself, so this is a backslash or "${escaped[1]}"; write the characters themselves (${hint(escaped[1] as string, true)}), and a backslash as [\\\\]`;
      } else if (c === '\\') {
        i++;
      }
      continue;
    }
    if (c === '[') {
      inBracket = true;
      // `]` right after `[` or `[^` is a member, not the end.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (c !== '\\') continue;
    const next = pattern[i + 1];
    if (next === undefined) return undefined;
    i++;
    if (!/[A-Za-z0-9]/.test(next) || GREP_ESCAPES.has(next)) continue;
    return `\`\\${next}\` is not an escape grep -E (POSIX extended regex) knows: it would match a plain "${next}"; write ${hint(next, false)}`;
  }
  return undefined;
}

function hint(letter: string, inBracket: boolean): string {
  if (!inBracket)
    return INSTEAD[letter] ?? 'the character without the backslash (escape only punctuation: \\. \\( \\[)';
  return IN_BRACKET_INSTEAD[letter] ?? 'the character itself; a ] goes first, as in []a], and a - last';
}

/** What to write inside brackets for the classes other dialects allow there. */
const IN_BRACKET_INSTEAD: Readonly<Record<string, string>> = {
  d: '0-9, as in [0-9.]',
  s: '[:space:], as in [[:space:],]',
  w: '[:alnum:]_, as in [[:alnum:]_-]',
};
