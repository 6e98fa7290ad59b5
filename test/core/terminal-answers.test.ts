import type { TerminalQuery } from '../../src/buffer/escape-parser.js';
import { type AnswerPort, TerminalAnswers } from '../../src/core/terminal-answers.js';

/** A port whose queries, input mode and cursor the test sets, and whose answers it collects. */
function port(raw: boolean | undefined) {
  const pending: TerminalQuery[] = [];
  const written: string[] = [];
  let cursor = { row: 0, col: 0 };
  let releaseCursor: (() => void) | undefined;
  const fake: AnswerPort = {
    takeQueries: () => pending.splice(0),
    rawInput: async () => raw,
    cursor: () => new Promise((resolve) => (releaseCursor = () => resolve(cursor))),
    write: async (bytes) => void written.push(bytes.toString('latin1')),
  };
  return {
    fake,
    pending,
    written,
    setCursor: (row: number, col: number) => {
      cursor = { row, col };
    },
    release: () => releaseCursor?.(),
  };
}

describe('TerminalAnswers', () => {
  it('answers a round of queries in order, in one write, the cursor 1-based', async () => {
    const p = port(true);
    const answers = new TerminalAnswers(p.fake, (err) => {
      throw err;
    });
    p.pending.push('status', 'cursor', 'primary-attributes', 'secondary-attributes');
    p.setCursor(4, 9);
    answers.note();
    await new Promise((resolve) => setImmediate(resolve));
    p.release();
    await answers.settled;
    expect(p.written).toEqual(['\u001b[0n\u001b[5;10R\u001b[?1;2c\u001b[>0;276;0c']);
  });

  it('answered(): settles once every query seen is answered, the next round included, or at its bound', async () => {
    const p = port(true);
    const answers = new TerminalAnswers(p.fake, (err) => {
      throw err;
    });
    await answers.answered(10_000);
    p.pending.push('cursor');
    answers.note();
    // A query that comes during the round is answered by the next one, which answered() waits for too.
    await new Promise((resolve) => setImmediate(resolve));
    p.pending.push('cursor');
    answers.note();
    let settled = false;
    const waiting = answers.answered(10_000).then(() => (settled = true));
    p.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([settled, p.written.length]).toEqual([false, 1]);
    // The next round starts after the gap and waits for the cursor again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    p.release();
    await waiting;
    expect(p.written).toHaveLength(2);
    // A round that never ends holds a write up for the bound only.
    p.pending.push('cursor');
    answers.note();
    const started = performance.now();
    await answers.answered(50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(p.written).toHaveLength(2);
  });

  it('answers queries that came during a round in the next round, after it', async () => {
    const p = port(true);
    const answers = new TerminalAnswers(p.fake, (err) => {
      throw err;
    });
    p.pending.push('cursor');
    answers.note();
    await new Promise((resolve) => setImmediate(resolve));
    p.pending.push('status');
    answers.note();
    p.release();
    await answers.settled;
    await new Promise((resolve) => setImmediate(resolve));
    await answers.settled;
    expect(p.written).toEqual(['\u001b[1;1R', '\u001b[0n']);
  });

  it.each([
    ['line mode', false],
    ['a mode that cannot be told', undefined],
  ])('answers nothing in %s (the answer would be read as typed text)', async (_, raw) => {
    const p = port(raw);
    const answers = new TerminalAnswers(p.fake, (err) => {
      throw err;
    });
    p.pending.push('status');
    answers.note();
    await answers.settled;
    expect(p.written).toEqual([]);
    expect(p.pending).toEqual([]);
  });
});
