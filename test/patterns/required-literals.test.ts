import fc from 'fast-check';
import { isAscii } from 'node:buffer';
import { RE2JS } from 're2js';
import { MAX_PREFILTER_LITERAL_CHARS, MAX_PREFILTER_LITERALS } from '../../src/limits.js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { literalFinder } from '../../src/patterns/literal-finder.js';
import { requiredLiterals } from '../../src/patterns/required-literals.js';

/** RE2 itself, with no prefilter in front: the oracle. */
function engine(source: string, ignoreCase: boolean): RE2JS {
  return RE2JS.compile(source, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
}

describe('requiredLiterals', () => {
  it.each([
    ['error', false, ['error'], false],
    ['error|fail', false, ['error', 'fail'], false],
    ['(?i)ready|listening', false, ['ready', 'listening'], true],
    ['ready', true, ['ready'], true],
    ['(?-i)ready', true, ['ready'], false],
    ['(?s)(?i)x', false, ['x'], true],
    [String.raw`Tests: \d+ passed`, false, ['Tests: '], false],
    [String.raw`\d+ passed`, false, [' passed'], false],
    ['abc*d', false, ['ab'], false],
    ['abc+', false, ['ab'], false],
    ['ab{2}c', false, ['a'], false],
    ['x(abc)yz', false, ['abc'], false],
    ['(abc)*yz', false, ['yz'], false],
    ['(error|fail)', false, ['error', 'fail'], false],
    ['(?i)(error|warn)(ing)?:', false, ['error', 'warn'], true],
    ['(?:ab|cd)+e', false, ['ab', 'cd'], false],
    ['(?P<word>ready)|(?<other>listening)', false, ['ready', 'listening'], false],
    ['(a|b(?i)c)d', false, ['d'], false],
    ['(?i:abc)d', false, ['d'], false],
    ['(x(yz|zy)w)+', false, ['yz', 'zy'], false],
    ['[]a]bc|[^]x]yz', false, ['bc', 'yz'], false],
    ['[[:alpha:]]+ok', false, ['ok'], false],
    [String.raw`\[y/N\] $`, false, ['[y/N] '], false],
    [String.raw`\x{41}BC\pLde\p{Greek}f`, false, ['BC'], false],
    ['😀é', false, ['😀é'], false],
    ['(?i)éa', false, ['a'], true],
    ['>>> $', false, ['>>> '], false],
    ['error|errors', false, ['error', 'errors'], false],
    ['b|b', false, ['b'], false],
    [`${'a'.repeat(40)}`, false, ['a'.repeat(MAX_PREFILTER_LITERAL_CHARS)], false],
  ])('%j (caseless %j): %j', (source, ignoreCase, literals, caseless) => {
    expect(requiredLiterals(source, ignoreCase)).toEqual({ literals, ignoreCase: caseless });
  });

  it.each([
    ['a alternative with no literal', String.raw`error|\d+`],
    ['an empty alternative', 'error|'],
    ['only classes and repetitions', '[0-9]{3}'],
    ['flags set midway', 'ab(?i)cd'],
    ['a quoted literal', String.raw`\Qa.b\E`],
    ['an octal escape', String.raw`\101bc`],
    ['a brace that is not a repetition', 'a{,3}'],
    ['a group a repetition can leave out', '(error|fail)?x*'],
    ['a group whose flags change midway', '(a(?i)b|c)'],
    [
      'more alternatives than the limit',
      Array.from({ length: MAX_PREFILTER_LITERALS + 1 }, (_, i) => `w${i}`).join('|'),
    ],
  ])('none for %s: %j', (_why, source) => {
    expect(() => engine(source, false)).not.toThrow();
    expect(requiredLiterals(source, false)).toBeUndefined();
  });

  it('reads an escaped ASCII non-word character as itself, as RE2 does', () => {
    for (let code = 0; code < 0x80; code++) {
      const char = String.fromCharCode(code);
      if (/[0-9A-Za-z]/.test(char)) continue;
      expect(requiredLiterals(`\\${char}`, false)).toEqual({ literals: [char], ignoreCase: false });
      expect(engine(`\\${char}`, false).test(char)).toBe(true);
    }
  });
});

describe('literalFinder', () => {
  it('finds the next occurrence at or after `from`, on the line it is on', () => {
    const text = 'one\nerror two\nthree fail error\n';
    for (const finder of [
      literalFinder({ literals: ['error'], ignoreCase: false }),
      literalFinder({ literals: ['fail', 'error'], ignoreCase: false }),
      literalFinder({ literals: ['ERROR', 'FAIL'], ignoreCase: true }),
    ]) {
      const first = finder.find(text, 0);
      expect(text.lastIndexOf('\n', first)).toBe(3);
      const second = finder.find(text, text.indexOf('\n', first) + 1);
      expect(text.lastIndexOf('\n', second)).toBe(13);
      expect(finder.find(text, text.length - 1)).toBe(-1);
    }
  });

  it('caseless, finds every character RE2 folds an ASCII character to, and only those', () => {
    // RE2's folds that cross the ASCII line, looked for over every code point.
    const anyAscii = engine('[\\x00-\\x7f]', true);
    const crossing: number[] = [];
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (anyAscii.test(String.fromCodePoint(code))) crossing.push(code);
    }
    expect(crossing).toEqual([0x17f, 0x212a]);
    const candidates = [...Array.from({ length: 0x80 }, (_, code) => code), ...crossing].map((code) =>
      String.fromCodePoint(code),
    );
    for (let code = 0; code < 0x80; code++) {
      const ascii = String.fromCharCode(code);
      if (ascii === '\n') continue;
      const finder = literalFinder({ literals: [ascii], ignoreCase: true });
      const quoted = /[0-9A-Za-z]/.test(ascii) ? ascii : `\\${ascii}`;
      const folds = engine(quoted, true);
      for (const candidate of candidates) {
        if (candidate === '\n') continue;
        expect([ascii, candidate, finder.find(candidate, 0) !== -1]).toEqual([ascii, candidate, folds.test(candidate)]);
      }
    }
  });
});

const literalAtoms = ['a', 'b', 'k', 'S', 'é', '😀', ' ', String.raw`\.`, String.raw`\[`, String.raw`\{`, '\\\\', '-'];
const otherAtoms = [
  '.',
  '^',
  '$',
  '[ab]',
  '[^a]',
  '[]a]',
  '[^]b]',
  '[[:alpha:]]',
  '[a-c]',
  String.raw`[\]k]`,
  String.raw`[\d.]`,
  String.raw`\d`,
  String.raw`\w`,
  String.raw`\s`,
  String.raw`\b`,
  String.raw`\B`,
  String.raw`\pL`,
  String.raw`\p{Greek}`,
  String.raw`\x{61}`,
  String.raw`\x62`,
  String.raw`\t`,
  String.raw`\A`,
  String.raw`\z`,
  '(?i)',
  '(?-i)',
];
const quantifiers = ['*', '+', '?', '{2}', '{1,}', '{0,2}', '*?', '+?'];
const groupOpeners = ['(', '(?:', '(?i:', '(?-i:', '(?P<g>', '(?<h>'];
const leadingFlags = ['', '', '(?i)', '(?s)', '(?i-s)', '(?-i)', '(?i)(?s)'];

/** A small RE2 pattern, written out of the constructs requiredLiterals has to read right. */
const patternSource: fc.Arbitrary<string> = fc.letrec<{ alternation: string; sequence: string; item: string }>(
  (tie) => ({
    alternation: fc
      .array(tie('sequence'), { minLength: 1, maxLength: 3 })
      .map((alternatives) => alternatives.join('|')),
    sequence: fc.array(tie('item'), { minLength: 1, maxLength: 5 }).map((items) => items.join('')),
    item: fc
      .tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...literalAtoms), weight: 10 },
          { arbitrary: fc.constantFrom(...otherAtoms), weight: 2 },
          {
            arbitrary: fc
              .tuple(fc.constantFrom(...groupOpeners), tie('alternation'))
              .map(([open, inner]) => `${open}${inner})`),
            weight: 1,
          },
        ),
        fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: fc.constantFrom(...quantifiers), weight: 1 }),
      )
      .map(([atom, quantifier]) => (atom === '^' || atom === '$' || atom.startsWith('\\b') ? atom : atom + quantifier)),
  }),
).alternation;

const line = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      'k',
      'K',
      '\u212a',
      's',
      'S',
      '\u017f',
      'é',
      'É',
      '😀',
      ' ',
      '.',
      '[',
      '{',
      '\\',
      '-',
      '1',
    ),
    {
      maxLength: 9,
    },
  )
  .map((chars) => chars.join(''));

describe('the prefilter against RE2 itself', () => {
  it('every line RE2 matches holds a required literal, and a pattern finds exactly the lines RE2 matches', () => {
    let withLiterals = 0;
    let ruledOut = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...leadingFlags),
        patternSource,
        fc.boolean(),
        fc.array(line, { maxLength: 12 }),
        (flags, body, ignoreCase, lines) => {
          const source = flags + body;
          let oracle: RE2JS;
          try {
            oracle = engine(source, ignoreCase);
          } catch {
            return; // Not valid RE2 (a repetition of an empty-width operator): the tools refuse it.
          }
          const required = requiredLiterals(source, ignoreCase);
          if (required !== undefined) withLiterals++;
          const finder = required === undefined ? undefined : literalFinder(required);
          for (const text of lines) {
            if (finder !== undefined && oracle.test(text))
              expect([source, text, finder.find(text, 0)]).not.toContain(-1);
          }
          const text = lines.map((l) => `${l}\n`).join('');
          const expected: string[] = lines.filter((l) => oracle.test(l));
          // Plain output kept as bytes is ruled out from its bytes: never when a line matches.
          const bytes = Buffer.from(text, 'utf8');
          if (isAscii(bytes)) {
            const may = compileLinearPattern('p', source, ignoreCase).mayMatchAscii(bytes);
            if (expected.length > 0) expect([source, text, may]).toEqual([source, text, true]);
            if (!may) ruledOut++;
          }
          const found = [...compileLinearPattern('p', source, ignoreCase).matchingLines(text)].map(({ start, end }) =>
            text.slice(start, end),
          );
          expect([source, found]).toEqual([source, expected]);
        },
      ),
      { numRuns: 3_000 },
    );
    // The generator must reach the prefilter often, or the property says little.
    expect(withLiterals).toBeGreaterThan(1_000);
    expect(ruledOut).toBeGreaterThan(50);
  });
});
