import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { misreadEscape } from '../../src/search/grep-escapes.js';
import { validateGrepRequest } from '../../src/search/grep-request.js';

const GREP = '/usr/bin/grep';
const SAMPLE = ['a1', 'd', 'ad', '12', '', 'x.y', 'a b', '\\d', 'da1', ']', 'a-', 'w_1'];

/** The sample lines grep -E matches with `pattern`, or undefined when grep refuses the pattern itself. */
function grepMatches(pattern: string): string[] | undefined {
  const run = spawnSync(GREP, ['-a', '-E', '--', pattern], { input: `${SAMPLE.join('\n')}\n`, encoding: 'utf8' });
  if (run.status === 2) return undefined;
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

describe('misreadEscape', () => {
  it.each([
    ['\\d+', /`\\d` is not an escape grep -E .* knows: it would match a plain "d"; write \[0-9\]/],
    ['^\\D', /write \[\^0-9\]/],
    ['a\\tb', /a tab character itself/],
    ['\\x41', /the character itself/],
    ['x\\qy', /without the backslash/],
    ['[\\d.]+', /`\\d` inside \[\.\.\.\]: .* a backslash or "d"; .*0-9, as in \[0-9\.\]/],
    ['[a\\s]', /\[:space:\]/],
    ['[\\]]', /a \] goes first/],
  ])('refuses %s, saying what to write instead', (pattern, reason) => {
    expect(misreadEscape(pattern)).toMatch(reason);
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
  ])('passes %s, which grep -E reads as written', (pattern) => {
    expect(misreadEscape(pattern)).toBeUndefined();
  });

  it("refuses through the search's own check, before any process starts", () => {
    expect(() => validateGrepRequest({ text: '', pattern: 'took \\d+ ms', ignoreCase: false, maxMatches: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/Nothing was searched/) }),
    );
  });

  it('every pattern it passes means to grep -E what it means to RE2, where both take it (grep and re2js as oracles)', () => {
    const token = fc.constantFrom('a', 'd', '1', '.', '\\', '[', ']', '^', '-', '(', ')', '|', '*', '+', 'w', 's');
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 7 }), (tokens) => {
        const pattern = tokens.join('');
        if (misreadEscape(pattern) !== undefined) return;
        const re2 = re2Matches(pattern);
        const grep = grepMatches(pattern);
        if (re2 === undefined || grep === undefined) return;
        expect({ pattern, grep }).toEqual({ pattern, grep: re2 });
      }),
      { numRuns: 400 },
    );
  });

  it('the property can fail: without the check, \\d means something else to grep than to RE2', () => {
    expect(grepMatches('\\d')).toEqual(['d', 'ad', '\\d', 'da1']);
    expect(re2Matches('\\d')).toEqual(['a1', '12', 'da1', 'w_1']);
  });
});
