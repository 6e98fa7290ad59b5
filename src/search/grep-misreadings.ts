/**
 * What `grep -E` (POSIX extended regex, GNU grep) would read otherwise than a model means it, since models write the
 * regex dialects of RE2, PCRE and JavaScript. GNU grep takes `\` before a letter it gives no meaning (`\d`, `\t`,
 * `\x41`) as that letter alone and says nothing: `\d+` then finds lines with a "d", not numbers, and the search
 * answers wrongly instead of failing. Inside a bracket expression a backslash is itself, so `[\d.]` is a backslash, a
 * "d" or a dot. A group opened with `(?` (`(?i)`, `(?:`, look-around), a lazy quantifier (`+?`), a quantifier with
 * nothing to repeat, `{,n}` and a `{` that opens no interval are read another way too (grep only warns on stderr).
 * Such a pattern is refused with what to write instead; every other pattern is passed as it is. The property test
 * holds every passed pattern to mean to grep what it means to RE2, with both as oracles.
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

/**
 * Why `pattern` would be misread by grep -E, and what to write instead; undefined when it would not. Also refuses a
 * group opened with `(?` (see groupSyntax).
 */
export function grepMisreading(pattern: string): string | undefined {
  let inBracket = false;
  // What the last token outside brackets was: a quantifier after an opening (the start, `(`, `|`, `^`) has nothing to
  // repeat, and a `?` after a quantifier is a lazy quantifier elsewhere but an optional repeat to grep.
  let last: 'opening' | 'atom' | 'quantifier' = 'opening';
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
      last = 'atom';
      // `]` right after `[` or `[^` is a member, not the end.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') return groupSyntax(pattern.slice(i));
    QUANTIFIER.lastIndex = i;
    const quantifier = QUANTIFIER.exec(pattern)?.[0];
    if (quantifier !== undefined) {
      if (last === 'quantifier' && quantifier === '?')
        return lazyQuantifier(pattern[i - 1] === '}' ? '}?' : `${pattern[i - 1]}?`);
      if (last === 'opening') return nothingToRepeat(quantifier);
      if (quantifier.startsWith('{,')) return noLowerBound(quantifier);
      last = 'quantifier';
      i += quantifier.length - 1;
      continue;
    }
    if (c === '{') return strayBrace();
    last = c === '(' || c === '|' || c === '^' ? 'opening' : 'atom';
    if (c !== '\\') continue;
    const next = pattern[i + 1];
    if (next === undefined) return undefined;
    i++;
    if (!/[A-Za-z0-9]/.test(next) || GREP_ESCAPES.has(next)) continue;
    return `\`\\${next}\` is not an escape grep -E (POSIX extended regex) knows: it would match a plain "${next}"; write ${hint(next, false)}`;
  }
  return undefined;
}

/** A quantifier grep -E reads as one: `*`, `+`, `?`, or an interval such as `{2}` or `{1,3}` (sticky: at lastIndex). */
const QUANTIFIER = /[*+?]|\{[0-9]*(?:,[0-9]*)?\}/y;

/**
 * `+?` is a lazy `+` to RE2, PCRE and JavaScript; grep -E reads it as `(…+)?`, which may match nothing, so `a+?`
 * finds every line.
 */
function lazyQuantifier(quantifier: string): string {
  return `\`${quantifier}\` is a lazy quantifier in other dialects, but grep -E reads it as an optional repeat, which matches an empty text, so every line would match; write it without the "?" (a search asks only which lines match, so laziness changes nothing)`;
}

/** grep -E warns of a quantifier with nothing before it and reads the pattern its own way. */
function nothingToRepeat(quantifier: string): string {
  return `\`${quantifier}\` has nothing before it to repeat (at the start, after "(", "|" or "^"): grep -E would warn and read it its own way; to match the character itself, escape it (\\${quantifier[0]})`;
}

/**
 * A `{` that opens no interval (`{2}`, `{1,3}`) is the text itself to RE2; GNU grep -E reads it by what comes before
 * and after it: as the text in `a|{`, as an empty alternative that matches every line in `\w|{`, as the start of an
 * interval that swallows the `)` in `({)`. Found by the property test (test/search/grep-misreadings.test.ts).
 */
function strayBrace(): string {
  return '`{` opens no interval such as {2} or {1,3} here: grep -E reads a lone brace one way or another by what is around it (in `\\w|{` it matches every line); write \\{ for the character';
}

/** `{,n}` is `{0,n}` to GNU grep but the text "{,n}" to RE2 and others: the dialects disagree, so say it plainly. */
function noLowerBound(quantifier: string): string {
  return `\`${quantifier}\` has no lower bound: grep -E reads it as {0${quantifier.slice(1)}, other dialects as the text itself; write {0${quantifier.slice(1)} for the repeat, or \\{ for the text`;
}

/**
 * `(?` opens a group of another dialect (RE2, PCRE, JavaScript): grep -E takes the `?` as a stray quantifier, warns on
 * stderr and searches for something else, so `(?i)error` finds no line while hundreds hold "error".
 */
function groupSyntax(group: string): string {
  const opening = /^\(\?(?:[a-zA-Z-]*[:)]|<?[=!]|P?<[A-Za-z_]\w*>)?/.exec(group)?.[0] ?? '(?';
  const instead = GROUP_ADVICE.find(([kind]) => kind.test(opening))?.[1] ?? 'write a plain group (...) instead';
  return `\`${opening}\` is not grep -E (POSIX extended regex) syntax: grep would take the "?" for a stray quantifier and search for something else; ${instead}`;
}

/** What to write for each kind of `(?` opening, the first that fits. */
const GROUP_ADVICE: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\(\?[a-zA-Z-]*i[a-zA-Z-]*\)$/, 'set ignoreCase: true instead (grep -E takes no inline flags)'],
  [/^\(\?[a-zA-Z-]*\)$/, 'leave the inline flags out (grep -E takes none)'],
  [/^\(\?[a-zA-Z-]*:$/, 'write a plain group (...) instead (grep -E has no non-capturing groups)'],
  [/[=!]$/, 'search without the look-around (grep -E has none), for the wider text'],
  [/^\(\?P?</, 'write a plain group (...) instead (grep -E has no named groups)'],
];

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
