import fc from 'fast-check';
import { RE2JS } from 're2js';
import { KEPT_PATTERN_SPECIMENS, MAX_PATTERN_CHARS } from '../../src/limits.js';
import { compileLinearPattern, patternSpecimens } from '../../src/patterns/linear-pattern.js';

describe('compileLinearPattern', () => {
  it('keeps the last few patterns it compiled alive (bounded), a refused one not among them', () => {
    const compiled = Array.from({ length: KEPT_PATTERN_SPECIMENS + 2 }, (_, i) =>
      compileLinearPattern('p', `kept${i}`),
    );
    expect(() => compileLinearPattern('p', '(')).toThrow();
    expect(patternSpecimens.specimens).toEqual(compiled.slice(-KEPT_PATTERN_SPECIMENS));
  });

  it('gives back the kept pattern for the same source and case, without compiling it again', () => {
    const prompt = compileLinearPattern('wait.pattern', '^reused>>> ?$');
    expect(compileLinearPattern('watch[0].pattern', '^reused>>> ?$')).toBe(prompt);
    const caseless = compileLinearPattern('wait.pattern', '^reused>>> ?$', true);
    expect(caseless).not.toBe(prompt);
    expect(caseless.test('REUSED>>> ')).toBe(true);
    expect(prompt.test('REUSED>>> ')).toBe(false);
    expect([...prompt.matchingLines('x\nreused>>> \n')]).toEqual([{ start: 2, end: 12 }]);
    // Pushed out by newer ones, it is compiled anew.
    for (let i = 0; i < KEPT_PATTERN_SPECIMENS; i++) compileLinearPattern('p', `pushes-out-${i}`);
    expect(compileLinearPattern('wait.pattern', '^reused>>> ?$')).not.toBe(prompt);
  });

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
      /wait\.pattern: not a valid RE2 syntax .*missing closing \): `\(unclosed`\. Nothing was done\.$/,
    );
    // The flags re2js was given are not shown as if they were part of the pattern; the model's own are.
    expect(() => compileLinearPattern('wait.pattern', '(', true)).toThrow(/missing closing \): `\(`\./);
    expect(() => compileLinearPattern('wait.pattern', '(?m)(?i)(', true)).toThrow(/`\(\?m\)\(\?i\)\(`/);
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

  it('matchingLines finds exactly the lines that match alone, even for patterns that could match across lines', () => {
    const sources = [
      '^b',
      'a$',
      'a\\sb',
      '^$',
      'b+c',
      '[^x]{3}',
      'c\\n?a',
      '\\bb',
      '\\Ab',
      'c\\z',
      'é',
      '😀.',
      '(?i)B',
      '.',
    ];
    const patterns = sources.map((p) => compileLinearPattern('p', p));
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.array(fc.stringMatching(/^[abcé😀 ]{0,5}$/u), { maxLength: 8 }),
        (pattern, lines) => {
          const text = lines.map((l) => `${l}\n`).join('');
          const found = [...pattern.matchingLines(text)].map(({ start, end }) => text.slice(start, end));
          expect(found).toEqual(lines.filter((l) => pattern.test(l)));
          const starts = [...pattern.matchingLines(text)].map((s) => s.start);
          const expectedStarts = lines
            .map((l, i) => ({ l, at: lines.slice(0, i).reduce((n, x) => n + x.length + 1, 0) }))
            .filter(({ l }) => pattern.test(l))
            .map(({ at }) => at);
          expect(starts).toEqual(expectedStarts);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('matchingLines over texts of many blocks: every line that matches alone, in order, at its offsets', () => {
    const sources = ['^b', 'a$', 'a\\sb', 'x{3}', '(?i)B.*C', 'c\\n?a', '^$'];
    const patterns = sources.map((p) => compileLinearPattern('p', p));
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        // Mostly lines that do not match, long enough that the text spans several MATCH_BLOCK_CHARS blocks.
        fc.array(
          fc.oneof({ arbitrary: fc.constant('y'.repeat(97)), weight: 30 }, fc.stringMatching(/^[abcx ]{0,6}$/)),
          {
            minLength: 60,
            maxLength: 400,
          },
        ),
        (pattern, lines) => {
          const text = lines.map((l) => `${l}\n`).join('');
          const expected: Array<{ start: number; end: number }> = [];
          for (let i = 0, at = 0; i < lines.length; at += (lines[i] as string).length + 1, i++) {
            if (pattern.test(lines[i] as string)) expected.push({ start: at, end: at + (lines[i] as string).length });
          }
          expect([...pattern.matchingLines(text)]).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("tests a line with the pattern's plain meaning: ^ and $ at the line's own ends, as RE2 and RegExp without m", () => {
    // The one compiled program is a multi-line one (for blocks); on a line, which holds no \n, it must mean the same as
    // the plain program. RegExp agrees too once its `.` takes \r as RE2's does (the s flag; a line has no \n).
    const sources = [
      '^a',
      'b$',
      '^$',
      '^a.*c$',
      '\\bab',
      'a\\s*$',
      '^(a|b)+$',
      '[^a]$',
      '(?i)^B',
      'c\\r?$',
      '^ ?$',
      'a.$',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.stringMatching(/^[abcAB \r]{0,8}$/), (source, line) => {
        const verdict = compileLinearPattern('p', source).test(line);
        expect(verdict).toBe(RE2JS.compile(source).test(line));
        expect(verdict).toBe(new RegExp(source.replace('(?i)', ''), source.startsWith('(?i)') ? 'is' : 's').test(line));
      }),
      { numRuns: 2_000 },
    );
    // \A and \z: the line's ends too.
    expect(compileLinearPattern('p', '\\Aab').test('ab')).toBe(true);
    expect(compileLinearPattern('p', '\\Aab').test('cab')).toBe(false);
    expect(compileLinearPattern('p', 'ab\\z').test('abc')).toBe(false);
  });

  it('agrees with RegExp on simple literal patterns', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-c]{1,3}$/), fc.stringMatching(/^[a-c ]{0,20}$/), (word, line) => {
        expect(compileLinearPattern('p', word).test(line)).toBe(line.includes(word));
      }),
    );
  });
});
