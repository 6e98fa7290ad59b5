import type { LinesRead, MatchesRead, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual } from '../expect.js';
import { ended } from '../harness.js';
import type { Scenario } from '../scenario.js';

const LINES = 1_234;
const PAGE = 500;

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ line: from + i, text: String(from + i) }));

export const paging: Scenario = {
  name: 'paging',
  summary: `seq ${LINES}: pages of ${PAGE} with absolute line numbers and nextOffset, tail, and a pattern with line numbers`,
  async run(h) {
    const { session } = await h.session('ses_smoke_paging');
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'seq',
      args: ['1', String(LINES)],
      description: 'numbers',
    });
    await ended(session, pty.id);
    const pages: Array<Pick<LinesRead, 'offset' | 'returned' | 'hasMore' | 'nextOffset' | 'lines'>> = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r: LinesRead = await session.call<LinesRead>('pty_read', { id: pty.id, offset, limit: PAGE });
      expectEqual(
        [r.totalLines, r.firstLine, r.droppedLines, r.retainedLines],
        [LINES, 1, 0, LINES],
        `counts at offset ${offset}`,
      );
      pages.push({
        offset: r.offset,
        returned: r.returned,
        hasMore: r.hasMore,
        nextOffset: r.nextOffset,
        lines: r.lines,
      });
      offset = r.nextOffset;
      if (pages.length > LINES / PAGE + 1) break;
    }
    expectEqual(
      pages.map((p) => [p.offset, p.returned, p.hasMore, p.nextOffset]),
      [
        [0, PAGE, true, PAGE],
        [PAGE, PAGE, true, 2 * PAGE],
        [2 * PAGE, LINES - 2 * PAGE, false, null],
      ],
      'pages (offset, returned, hasMore, nextOffset)',
    );
    expectEqual(
      pages.flatMap((p) => p.lines),
      numbered(1, LINES),
      'every line once, numbered from 1',
    );

    const tail = await session.call<LinesRead>('pty_read', { id: pty.id, tail: true, limit: 3 });
    expectEqual([tail.offset, tail.lines], [LINES - 3, numbered(LINES - 2, LINES)], 'tail of 3 (offset, lines)');

    const found = await session.call<MatchesRead>('pty_read', { id: pty.id, pattern: '^12[0-9]{2}$' });
    expectEqual([found.matches, found.lines], [35, numbered(1200, LINES)], 'pattern ^12[0-9]{2}$ (matches, lines)');
    const few = await session.call<MatchesRead>('pty_read', { id: pty.id, pattern: '7$', limit: 2 });
    expectEqual(
      few.lines,
      [
        { line: 7, text: '7' },
        { line: 17, text: '17' },
      ],
      'pattern 7$ with limit 2',
    );
  },
};
