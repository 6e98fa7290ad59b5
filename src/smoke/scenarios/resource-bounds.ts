import type { LinesRead, RawRead, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual, expectThat } from '../expect.js';
import { ended } from '../harness.js';
import { childrenOfSelf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { LINE_OVERHEAD_CHARS, MAX_ARGS, MAX_BUFFER_CHARS, MAX_RAW_CHARS, MAX_WRITE_BYTES } from '../../limits.js';

const LINE = '0123456789abcdef';
/** A line as printed: its characters and its newline (what the raw tail keeps). */
const LINE_CHARS = LINE.length + 1;
/** What a line counts against the buffer bound: its characters, its newline and the per-line overhead. */
const LINE_COST = LINE_CHARS + LINE_OVERHEAD_CHARS;
const FLOOD_LINES = 120_000;
const OVERSIZE_WRITE_BYTES = 70 * 1_024;

export const resourceBounds: Scenario = {
  name: 'resource-bounds',
  summary: `a ${((FLOOD_LINES * LINE_CHARS) / 1e6).toFixed(1)} M-char flood keeps at most ${MAX_BUFFER_CHARS.toLocaleString('en-US')} chars; ${MAX_ARGS + 1} args and a 70 KB write are refused before any prompt`,
  async run(h) {
    const { session } = await h.session('ses_smoke_bounds');
    const flood = await session.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: ['-c', `yes ${LINE} | head -n ${FLOOD_LINES}`],
      description: 'flood',
    });
    const end = await ended(session, flood.id);
    expectEqual([end.status, end.exitCode], ['exited', 0], 'flood (status, exit code)');

    const tail = await session.call<LinesRead>('pty_read', { id: flood.id, tail: true, limit: 1 });
    expectEqual(
      [tail.totalLines, tail.lines],
      [FLOOD_LINES, [{ line: FLOOD_LINES, text: LINE }]],
      'flood tail (totalLines, last line)',
    );
    expectThat(tail.droppedLines, (n) => n > 0, 'dropped lines > 0', 'droppedLines after the flood');
    expectThat(
      tail.retainedLines * LINE_COST,
      (c) => c <= MAX_BUFFER_CHARS && c > MAX_BUFFER_CHARS - LINE_COST,
      `between ${MAX_BUFFER_CHARS - LINE_COST} and ${MAX_BUFFER_CHARS} (full, within the bound)`,
      'retained characters',
    );
    expectEqual(
      [tail.firstLine, tail.droppedLines + tail.retainedLines],
      [tail.droppedLines + 1, FLOOD_LINES],
      'firstLine and dropped + retained',
    );
    const head = await session.call<LinesRead>('pty_read', { id: flood.id, offset: 0, limit: 1 });
    expectEqual(
      head.lines,
      [{ line: tail.firstLine, text: LINE }],
      'the oldest retained line keeps its absolute number',
    );
    const raw = await session.call<RawRead>('pty_read', { id: flood.id, raw: true, tail: true, limit: 1 });
    // Raw lines: a cut first line, whole lines, and the empty piece after the last newline.
    const rawBound = Math.floor(MAX_RAW_CHARS / LINE_CHARS) + 2;
    expectThat(
      raw.rawLines,
      (n) => n <= rawBound && n >= rawBound - 1,
      `${rawBound - 1} or ${rawBound} raw lines (the raw bound, full)`,
      'raw lines kept',
    );

    // Oversize inputs: refused before any prompt, nothing started, nothing written.
    const children = childrenOfSelf().length;
    const asks = session.asks.length;
    const tooMany = await session.refused(
      'pty_spawn',
      { command: 'true', args: Array(MAX_ARGS + 1).fill('x'), description: 'too many args' },
      'invalid_input',
    );
    expectThat(
      tooMany,
      (m) => m.includes(String(MAX_ARGS)),
      `a message naming the limit ${MAX_ARGS}`,
      `${MAX_ARGS + 1} args refusal`,
    );
    await session.refused(
      'pty_spawn',
      { command: 'true', args: ['x'.repeat(16_385)], description: 'huge arg' },
      'limit',
    );

    const cat = await session.call<SpawnResult>('pty_spawn', { command: 'cat', description: 'write target' });
    const asksAfterCat = session.asks.length;
    const big = await session.refused('pty_write', { id: cat.id, data: 'x'.repeat(OVERSIZE_WRITE_BYTES) }, 'limit');
    expectThat(
      big,
      (m) => m.includes(String(MAX_WRITE_BYTES)),
      `a message naming the limit ${MAX_WRITE_BYTES}`,
      '70 KB write refusal',
    );
    expectEqual(
      [asksAfterCat - asks, session.asks.length - asksAfterCat],
      [1, 0],
      'prompts (for the cat spawn only; none for refused inputs)',
    );
    expectEqual(childrenOfSelf().length, children + 1, 'child processes (only the cat)');
    const catRead = await session.call<LinesRead>('pty_read', { id: cat.id });
    expectEqual([catRead.status, catRead.totalLines], ['running', 0], 'cat after the refused write (status, lines)');
  },
};
