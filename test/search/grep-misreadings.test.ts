import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { grepMisreading } from '../../src/search/grep-misreadings.js';
import { validateGrepRequest } from '../../src/search/grep-request.js';

const GREP = '/usr/bin/grep';
const SAMPLE = ['a1', 'd', 'ad', '12', '', 'x.y', 'a b', '\\d', 'da1', ']', 'a-', 'w_1', 'A', '?i', '(a)'];

/** The sample lines grep -E matches with `pattern`, or undefined when grep refuses the pattern itself. */
function grepMatches(pattern: string): string[] | undefined {
  const run = spawnSync(GREP, ['-a', '-E', '--', pattern], { input: `${SAMPLE.join('\n')}\n`, encoding: 'utf8' });
  // grep refuses a bad pattern before it reads, so feeding it the sample may meet a closed pipe (EPIPE): its status
  // says what happened. Without one, grep did not run to its end, which read as "no line matched" looked like a
  // misreading.
  if (run.status === null || typeof run.stdout !== 'string') {
    throw new Error(`grep -E ${JSON.stringify(pattern)} did not run: ${run.error?.message ?? `signal ${run.signal}`}`);
  }
  if (run.status === 2) return undefined;
  if (run.error !== undefined) throw new Error(`grep -E ${JSON.stringify(pattern)}: ${run.error.message}`);
  return run.stdout === '' ? [] : run.stdout.slice(0, -1).split('\n');
}

/** The sample lines RE2 (a wait's syntax) matches, or undefined when RE2 refuses the pattern. */
function re2Matches(pattern: string): string[] | undefined {
  try {
    const re = RE2JS.compile(pattern);
    return SAMPLE.filter((line) => re.matcher(line).find());
  } catch {
    return undefined;
  }
}

describe('grepMisreading', () => {
  it.each([
    ['\\d+', /`\\d` is not an escape grep -E .* knows: it would match a plain "d"; write \[0-9\]/],
    ['^\\D', /write \[\^0-9\]/],
    ['a\\tb', /a tab character itself/],
    ['\\x41', /the character itself/],
    ['x\\qy', /without the backslash/],
    ['[\\d.]+', /`\\d` inside \[\.\.\.\]: .* a backslash or "d"; .*0-9, as in \[0-9\.\]/],
    ['[a\\s]', /\[:space:\]/],
    ['[\\]]', /a \] goes first/],
    ['(?i)error', /`\(\?i\)` is not grep -E .*set ignoreCase: true/],
    ['(?:foo) bar', /`\(\?:` .*plain group \(\.\.\.\)/],
    ['foo(?=bar)', /`\(\?=` .*look-around/],
    ['(?<!a)b', /`\(\?<!` .*look-around/],
    ['(?P<name>x)', /`\(\?P<name>` .*named groups/],
    ['(?s).', /inline flags out/],
    ['a+?', /`\+\?` is a lazy quantifier .* every line would match; write it without the "\?"/],
    ['x*?y', /`\*\?`/],
    ['x{2,}?', /`\}\?`/],
    ['*a', /`\*` has nothing before it to repeat/],
    ['a|+b', /`\+` has nothing before it/],
    ['{,}a', /`\{,\}` has nothing before it/],
    ['a{,2}', /`\{,2\}` has no lower bound: grep -E reads it as \{0,2\}/],
    ['\\w|{', /`\{` opens no interval .* write \\\{ for the character/],
    ['({)', /`\{` opens no interval/],
    ['{', /`\{` opens no interval/],
    ['a{1,', /`\{` opens no interval/],
  ])('refuses %s, saying what to write instead', (pattern, reason) => {
    expect(grepMisreading(pattern)).toMatch(reason);
  });

  it.each([
    'plain',
    '\\.\\(\\)\\[\\]\\{\\}\\*\\+\\?\\|\\^\\$\\\\',
    '\\w+\\s\\b\\B\\S\\W',
    '(a)\\1',
    '[[:digit:]]+',
    '[]a]',
    '[^]a]',
    '[a\\\\]',
    '[[:alpha:]\\\\]',
    'a\\',
    'x?(y)',
    '[(?]',
    '\\(?i',
    'a?b?',
    'a\\+?',
    '(a+)?',
    '[+]?',
    'a{0,2}',
    '\\*a',
  ])('passes %s, which grep -E reads as written', (pattern) => {
    expect(grepMisreading(pattern)).toBeUndefined();
  });

  it("refuses through the search's own check, before any process starts", () => {
    expect(() => validateGrepRequest({ text: '', pattern: 'took \\d+ ms', ignoreCase: false, maxMatches: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/Nothing was searched/) }),
    );
  });

  it('every pattern it passes means to grep -E what it means to RE2, where both take it (grep and re2js as oracles)', () => {
    const token = fc.constantFrom(
      ...[
        'a',
        'd',
        '1',
        '.',
        '\\',
        '[',
        ']',
        '^',
        '-',
        '(',
        ')',
        '|',
        '*',
        '+',
        'w',
        's',
        '?',
        'i',
        ':',
        '{',
        '}',
        ',',
      ],
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 7 }), (tokens) => {
        const pattern = tokens.join('');
        if (grepMisreading(pattern) !== undefined) return;
        const re2 = re2Matches(pattern);
        const grep = grepMatches(pattern);
        if (re2 === undefined || grep === undefined) return;
        expect({ pattern, grep }).toEqual({ pattern, grep: re2 });
      }),
      { numRuns: 600 },
    );
  });

  it('a lone brace: grep reads `\\w|{` as matching every line, RE2 as a brace; `\\{` means the brace to both', () => {
    expect(grepMatches('\\w|{')).toEqual(SAMPLE);
    expect(re2Matches('\\w|{')).not.toEqual(SAMPLE);
    expect(grepMatches('\\w|\\{')).toEqual(re2Matches('\\w|\\{'));
    expect(grepMisreading('\\w|\\{')).toBeUndefined();
  });

  it('the property can fail: without the check, \\d and (?i) mean something else to grep than to RE2', () => {
    expect(grepMatches('\\d')).toEqual(['d', 'ad', '\\d', 'da1']);
    expect(re2Matches('\\d')).toEqual(['a1', '12', 'da1', 'w_1']);
    expect(grepMatches('(?i)a')).toEqual([]);
    expect(re2Matches('(?i)a')).toEqual(['a1', 'ad', 'a b', 'da1', 'a-', 'A', '(a)']);
  });
});
