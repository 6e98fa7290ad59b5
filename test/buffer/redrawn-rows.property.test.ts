import fc from 'fast-check';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { xtermRows } from '../support/xterm-rows.js';

const ROWS = 24;
const COLS = 40;

/** The line view of `input` cut at `cuts`, the unfinished line included when it holds anything. */
function lineView(input: string, cuts: readonly number[]): string[] {
  const renderer = new LineRenderer({ size: { rows: ROWS, cols: COLS } });
  const lines: string[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(input.length)) {
    lines.push(...renderer.push(input.slice(from, cut)));
    from = cut;
  }
  const partial = renderer.partial();
  return [...lines, ...(partial === '' ? [] : [partial])].map((line) => line.trimEnd());
}

const row = fc.string({ unit: fc.constantFrom('a', 'b', 'x', ' ', '1'), maxLength: 20 });

/**
 * A program that draws rows, then moves the cursor back up over some of them and draws them again as they were (Node's
 * REPL, prompt_toolkit after each key): however the output is cut into chunks, the log holds each row once, as a
 * terminal's screen shows it.
 */
describe('rows drawn again as they were add nothing to the lines, against xterm.js', () => {
  it('from the empty line under them or from an unfinished one, erased first or overwritten, in any chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 2, maxLength: 12 }),
        fc.boolean(),
        fc.constantFrom('', '\x1b[K', '\x1b[J'),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (rows, fromUnfinished, erase, upPick, cutPicks) => {
          // The rows above the cursor: all of them, or all but the last, which is the unfinished line.
          const above = fromUnfinished ? rows.length - 1 : rows.length;
          const up = 1 + (upPick % above);
          const drawn = rows.slice(rows.length - (fromUnfinished ? up + 1 : up));
          const first = rows.join('\r\n') + (fromUnfinished ? '' : '\r\n');
          // Up, home, then each row again: erased to its end (K) or with all below it (J) before it is written.
          const rewritten = drawn.map((text) => `${erase}${text}`).join('\r\n');
          const redraw = `\x1b[${up}A\r${rewritten}${fromUnfinished ? '' : '\r\n'}`;
          const input = `${first}${redraw}${fromUnfinished ? '\r\n' : ''}end\r\n`;
          const cuts = cutPicks.map((pick) => pick % (input.length + 1));
          const expected = [...rows.map((text) => text.trimEnd()), 'end'];
          expect(lineView(input, cuts)).toEqual(expected);
          expect(await xtermRows(input, ROWS, COLS)).toEqual(expected.length > 0 ? trimTrailingEmpty(expected) : []);
        },
      ),
      { numRuns: 300 },
    );
  });
});

function trimTrailingEmpty(rows: string[]): string[] {
  const kept = [...rows];
  while (kept.at(-1) === '') kept.pop();
  return kept;
}
