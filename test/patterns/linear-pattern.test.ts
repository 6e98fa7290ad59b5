import fc from 'fast-check';
import { MAX_PATTERN_CHARS } from '../../src/limits.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';

describe('compileLinearPattern', () => {
  it('matches anywhere in a line, prompts without a newline included', () => {
    const prompt = compileLinearPattern('wait.pattern', '>>> $');
    expect(prompt.test('>>> ')).toBe(true);
    expect(prompt.test('>>> 2')).toBe(false);
    expect(compileLinearPattern('p', String.raw`\[y/N\] $`).test('Continue? [y/N] ')).toBe(true);
    expect(compileLinearPattern('p', 'Tests: .* failed').test('Tests: 3 passed, 1 failed, 4 total')).toBe(true);
  });

  it('matches case-insensitively when asked', () => {
    expect(compileLinearPattern('p', 'error').test('ERROR: boom')).toBe(false);
    expect(compileLinearPattern('p', 'error', true).test('ERROR: boom')).toBe(true);
  });

  it("refuses an invalid pattern with RE2's reason, naming the field", () => {
    expect(() => compileLinearPattern('wait.pattern', '(unclosed')).toThrow(
      /wait\.pattern: not a valid RE2 syntax .*missing closing \)/,
    );
    // Backreferences and lookaround are what RE2 leaves out to stay linear: refused, not silently misread.
    expect(() => compileLinearPattern('watch[0].pattern', String.raw`(a)\1`)).toThrow(
      /watch\[0\]\.pattern: not a valid RE2/,
    );
    expect(() => compileLinearPattern('p', '(?=x)')).toThrow(/not a valid RE2/);
  });

  it('refuses a pattern past MAX_PATTERN_CHARS, and an empty one', () => {
    expect(() => compileLinearPattern('wait.pattern', 'a'.repeat(MAX_PATTERN_CHARS + 1))).toThrow(
      new RegExp(`${MAX_PATTERN_CHARS + 1} characters, but a pattern may have at most ${MAX_PATTERN_CHARS}`),
    );
    expect(compileLinearPattern('p', 'a'.repeat(MAX_PATTERN_CHARS)).test('a'.repeat(MAX_PATTERN_CHARS))).toBe(true);
    expect(() => compileLinearPattern('p', '')).toThrow(/must not be empty/);
  });

  it('stays linear on a pattern that makes a backtracking engine take exponential time', () => {
    // RegExp needs ~2^n steps for (a+)+$ on a^n followed by one non-match; n = 30 alone takes seconds.
    const evil = compileLinearPattern('p', '(a+)+$');
    const line = `${'a'.repeat(100_000)}!`;
    const started = process.hrtime.bigint();
    expect(evil.test(line)).toBe(false);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(ms).toBeLessThan(2_000);
  });

  it('firstMatch finds the first matching line, even for patterns that could match across the joined lines', () => {
    const patterns = ['^b', 'a$', 'a\\sb', '^$', 'b+c', '[^x]{3}', 'c\\n?a'].map((p) => compileLinearPattern('p', p));
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.array(fc.stringMatching(/^[abc ]{0,5}$/), { maxLength: 8 }),
        (pattern, lines) => {
          expect(pattern.firstMatch(lines)).toBe(lines.findIndex((l) => pattern.test(l)));
        },
      ),
    );
  });

  it('agrees with RegExp on simple literal patterns', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-c]{1,3}$/), fc.stringMatching(/^[a-c ]{0,20}$/), (word, line) => {
        expect(compileLinearPattern('p', word).test(line)).toBe(line.includes(word));
      }),
    );
  });
});
