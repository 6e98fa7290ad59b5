import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { warmAutomaton } from '../../src/patterns/warm-automaton.js';

/**
 * re2js 2.10.0 (pinned) builds its DFA on a pattern's first run (`re2Input.lazyDFA`) and its states as text takes it
 * to them (`stateCount`): what these tests read to tell that the building happened before the line that needs it.
 */
interface Automaton {
  readonly stateCount: number;
}
const automatonOf = (compiled: RE2JS): Automaton | null =>
  (compiled as unknown as { re2Input: { lazyDFA: Automaton | null } }).re2Input.lazyDFA;

const ANSWER = '(?:^|>>> )ans 32 ([0-9]+)$';

describe('warmAutomaton', () => {
  it('builds the automaton and the states along the required text before any line is tested', () => {
    const compiled = RE2JS.compile(ANSWER, RE2JS.MULTILINE);
    expect(automatonOf(compiled)).toBeNull();
    warmAutomaton(compiled, ['ans 32 ']);
    const built = automatonOf(compiled)?.stateCount ?? 0;
    expect(built).toBeGreaterThan(1);
    // The literal's own path needs nothing more; a real answer line only the states past it.
    compiled.test('ans 32 ');
    expect(automatonOf(compiled)?.stateCount).toBe(built);
  });

  it('never changes what the pattern matches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        fc.string({ maxLength: 30 }),
        (texts, line) => {
          const cold = RE2JS.compile(ANSWER, RE2JS.MULTILINE);
          const warmed = RE2JS.compile(ANSWER, RE2JS.MULTILINE);
          warmAutomaton(warmed, texts);
          for (const probe of [line, `ans 32 ${line}`, `>>> ans 32 ${line.length}`]) {
            expect(warmed.test(probe)).toBe(cold.test(probe));
          }
        },
      ),
    );
  });
});

describe('compileLinearPattern warms what it compiles', () => {
  afterEach(() => jest.restoreAllMocks());

  it('runs the engine on its required text at compile time, so the first line to test finds the automaton built', () => {
    const runs = jest.spyOn(RE2JS.prototype, 'test');
    const pattern = compileLinearPattern('wait.pattern', 'ans 41 ([0-9]+)$');
    expect(runs.mock.calls.map(([text]) => text)).toEqual(expect.arrayContaining(['', 'ans 41 ']));
    expect(pattern.test('ans 41 123')).toBe(true);
    expect(pattern.test('ans 4 123')).toBe(false);
  });
});
