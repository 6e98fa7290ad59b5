import { NEVER, Observable, throwError } from 'rxjs';
import { PtySession, type PtyInfo } from '../../src/core/pty-session.js';
import { actThenWait, compileWait, waitShapes } from '../../src/core/wait-call.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { Reaper } from '../../src/engine/reaper.js';
import { MAX_BUFFER_CHARS, MAX_LINE_CHARS } from '../../src/limits.js';
import { PtyError } from '../../src/errors.js';
import { WaitMatch } from '../../src/protocol/tool-results.js';
import type { PtyEvent } from '../../src/streams/pty-events.js';
import type { PtyHandle, ptyProcess$ } from '../../src/streams/pty-process.js';

const info: PtyInfo = {
  id: 'pty_00000001',
  owner: 'ses_a',
  title: 't',
  description: 'd',
  command: 'echo',
  args: ['ready'],
  workdir: '/tmp',
  createdAt: '2026-01-01T00:00:00.000Z',
  timeoutSeconds: null,
  notifyOnExit: false,
};
const spec = { command: 'echo', args: ['ready'], workdir: '/tmp', rows: 40, cols: 120 };
const FROM_THE_START = { mark: { line: 1, partialTail: '' } };

const handle: PtyHandle = {
  pid: 100,
  terminalSid: 101,
  write: async (bytes) => bytes.length,
  terminal: () => undefined,
  terminate: () => NEVER,
};

function sessionWith(spawn: () => Observable<PtyEvent>): PtySession {
  return new PtySession(info, spec, {
    reaper: new Reaper(),
    close$: NEVER,
    ownerDeleted$: NEVER,
    onExit: () => undefined,
    spawn: spawn as unknown as typeof ptyProcess$,
  });
}

/** Whether a wait listens to the session's activity (what a subscribed wait is). */
const listened = (session: PtySession): boolean =>
  (session as unknown as { activity: { observed: boolean } }).activity.observed;

/** A process that starts at once and prints `text` a turn of the loop later, as a pipe's read comes. */
const printsNextTurn = (text: string, onSpawn: () => void) => () =>
  new Observable<PtyEvent>((subscriber) => {
    onSpawn();
    subscriber.next({ kind: 'started', handle });
    const turn = setImmediate(() => subscriber.next({ kind: 'output', text, bytes: text.length, ascii: false }));
    return () => clearImmediate(turn);
  });

const wait = (pattern: string) => compileWait('pty_spawn', { pattern, timeoutMs: 5_000 });

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('actThenWait: act first, the wait set up in the same run', () => {
  it('the process starts before the wait listens, and the wait still hears its first output', async () => {
    const order: string[] = [];
    const session = sessionWith(
      printsNextTurn('ready\n', () => order.push(`spawn (wait listening: ${listened(session)})`)),
    );
    const { waited } = await actThenWait(session, wait('^ready$'), undefined, () => session.start(), FROM_THE_START);
    expect(order).toEqual(['spawn (wait listening: false)']);
    expect(waited?.reason).toBe('match');
    expect(waited?.lines).toEqual([{ line: 1, text: 'ready' }]);
    // The wait lets go of the PTY's activity in the turn after its answer (firstThenRelease).
    await turns(1);
    expect(listened(session)).toBe(false);
  });

  it('a start that fails at once rejects with its own error; the wait set up after it leaves no rejection behind', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failure = new PtyError('spawn_failed', 'no such program');
      const session = sessionWith(() => throwError(() => failure));
      await expect(
        actThenWait(session, wait('^ready$'), undefined, () => session.start(), FROM_THE_START),
      ).rejects.toBe(failure);
      await turns(3);
      expect(unhandled).toEqual([]);
      expect(listened(session)).toBe(false);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an act that fails after the process started lets the wait go', async () => {
    const session = sessionWith(printsNextTurn('later\n', () => undefined));
    const failure = new Error('the write failed');
    await expect(
      actThenWait(session, wait('^never$'), undefined, async () => {
        await session.start();
        expect(listened(session)).toBe(true);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(listened(session)).toBe(false);
  });
});

describe("a wait's match is cut as its line is in lines", () => {
  const LONG = 300_000;
  const matchOf = async (output: string) => {
    const session = sessionWith(printsNextTurn(output, () => undefined));
    const { waited } = await actThenWait(session, wait('DONE'), undefined, () => session.start(), FROM_THE_START);
    expect(waited?.reason).toBe('match');
    return { match: waited?.match, lines: waited?.lines ?? [] };
  };

  it('a long finished line: match.text is cut at MAX_LINE_CHARS, with cutFrom, as its entry in lines', async () => {
    const { match, lines } = await matchOf(`${'x'.repeat(LONG)}DONE\n`);
    expect(match?.text).toHaveLength(MAX_LINE_CHARS);
    expect(match).toEqual({ line: 1, text: 'x'.repeat(MAX_LINE_CHARS), cutFrom: LONG + 4, unfinished: false });
    expect(lines).toEqual([{ line: 1, text: match?.text, cutFrom: LONG + 4 }]);
    expect(WaitMatch.parse(match)).toEqual(match);
  });

  it.each([
    ['a finished', '\n', undefined],
    ['an unfinished', '', true],
  ])(
    '%s line longer than the buffer says how much of its head it lost, in match and lines alike',
    async (_, end, unfinished) => {
      // Only the newest bound's worth of such a line is kept: without headDropped its kept end read as its start.
      const printed = 'HEAD'.length + 2 * MAX_BUFFER_CHARS + 'DONE'.length;
      const { match, lines } = await matchOf(`HEAD${'z'.repeat(2 * MAX_BUFFER_CHARS)}DONE${end}`);
      expect(match?.text.startsWith('HEAD')).toBe(false);
      const headDropped = match?.headDropped ?? 0;
      expect(headDropped).toBeGreaterThan(MAX_BUFFER_CHARS);
      expect(headDropped + (match?.cutFrom ?? 0)).toBe(printed);
      expect(lines).toEqual([
        { line: 1, text: match?.text, cutFrom: match?.cutFrom, headDropped, ...(unfinished ? { unfinished } : {}) },
      ]);
      expect(WaitMatch.parse(match)).toEqual(match);
    },
  );

  it('a cut never splits a surrogate pair: an emoji at the cut is left out whole, not halved', async () => {
    const { match } = await matchOf(`${'x'.repeat(MAX_LINE_CHARS - 1)}${'😀'.repeat(10)}DONE\n`);
    expect(match?.text).toBe('x'.repeat(MAX_LINE_CHARS - 1));
    expect(match?.text.isWellFormed()).toBe(true);
  });

  it('a long unfinished line: match.text is cut at MAX_LINE_CHARS, with cutFrom, as its entry in lines', async () => {
    const { match, lines } = await matchOf(`${'y'.repeat(LONG)}DONE`);
    expect(match?.text).toHaveLength(MAX_LINE_CHARS);
    expect(match).toEqual({ line: 1, text: 'y'.repeat(MAX_LINE_CHARS), cutFrom: LONG + 4, unfinished: true });
    expect(lines).toEqual([{ line: 1, text: match?.text, cutFrom: LONG + 4, unfinished: true }]);
  });

  it('a short match is the whole line, without cutFrom', async () => {
    const { match, lines } = await matchOf('all DONE\n');
    expect(match).toStrictEqual({ line: 1, text: 'all DONE', unfinished: false });
    expect(lines).toEqual([{ line: 1, text: 'all DONE' }]);
  });

  it('a line of exactly MAX_LINE_CHARS is not cut', async () => {
    const text = `${'z'.repeat(MAX_LINE_CHARS - 4)}DONE`;
    const { match } = await matchOf(`${text}\n`);
    expect(match).toStrictEqual({ line: 1, text, unfinished: false });
  });
});

describe("a wait's end leaves a step of its own in the shape keeper, so the next wait's scans stay optimized", () => {
  /** What the kept step reads: its class, its scanner's class, and the buffer that scanner reads. */
  function keptStep(): { step: string | undefined; scanner: string | undefined; lines: unknown } {
    const [step] = waitShapes.instance ?? [];
    const scanner = (step as { scanner?: { lines: unknown } } | undefined)?.scanner;
    return { step: step?.constructor.name, scanner: scanner?.constructor.name, lines: scanner?.lines };
  }

  it('a wait that matched: in the turn after its answer, a step that is not the one used, reading a buffer of its own', async () => {
    const session = sessionWith(printsNextTurn('ready\n', () => undefined));
    const before = waitShapes.instance;
    const { waited } = await actThenWait(session, wait('^ready$'), undefined, () => session.start(), FROM_THE_START);
    expect(waited?.reason).toBe('match');
    // Renewed in the turn after the answer, not before it.
    await new Promise(setImmediate);
    expect(waitShapes.instance).not.toBe(before);
    const kept = keptStep();
    expect(kept).toEqual({ step: 'ActivityOutcomes', scanner: 'OutputScanner', lines: expect.any(OutputBuffer) });
    expect(kept.lines).not.toBe(session.buffer);
  });

  it('a wait let go because its act failed', async () => {
    const session = sessionWith(printsNextTurn('later\n', () => undefined));
    const before = waitShapes.instance;
    const failed = actThenWait(session, wait('^never$'), undefined, () => Promise.reject(new Error('no')));
    await expect(failed).rejects.toThrow('no');
    expect(waitShapes.instance).not.toBe(before);
    expect(keptStep().step).toBe('ActivityOutcomes');
  });
});
