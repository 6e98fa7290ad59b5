import { of } from 'rxjs';
import { PtyError } from '../../src/errors.js';
import { GREP_CPU_BUDGET_MS, GREP_CPU_CHECK_MIN_MS, GREP_WALL_TIMEOUT_MS } from '../../src/limits.js';
import { type GrepRunOptions, runGrep } from '../../src/search/grep-run.js';
import { ForkTurns } from '../../src/streams/fork-turns.js';
import { GREP_PATH } from '../../src/engine/system-paths.js';
import { childrenOfSelf } from '../../src/testkit/processes.js';
import { crankedLoop } from '../support/cranked-loop.js';

const text = Buffer.from('alpha\nneedle one\nbeta\n');

function options(forkTurns: ForkTurns): GrepRunOptions {
  return {
    grepPath: GREP_PATH,
    forkTurns,
    budget: { budgetMs: GREP_CPU_BUDGET_MS, wallTimeoutMs: GREP_WALL_TIMEOUT_MS, minCheckMs: GREP_CPU_CHECK_MIN_MS },
    maxStdoutChars: 10_000,
    maxStderrChars: 1_000,
  };
}

const liveChildren = () => childrenOfSelf().filter((c) => c.state !== 'Z');

describe('runGrep and the host-wide start queue', () => {
  it('forks in a turn no other start has had, and searches as usual once it does', async () => {
    const loop = crankedLoop();
    const turns = new ForkTurns(loop.schedule);
    // A PTY's start took this turn.
    turns.inTurn(of('started')).subscribe();
    const run = runGrep(['-nE', 'needle'], text, options(turns));
    expect(turns.queued).toBe(1);
    expect(liveChildren()).toEqual([]);
    // One turn goes round with no start, the next is grep's.
    await loop.turn();
    expect(turns.queued).toBe(1);
    await loop.turn();
    expect(turns.queued).toBe(0);
    await expect(run.done).resolves.toEqual([{ lineNumber: 2, text: 'needle one' }]);
  });

  it('stopped while it waits for its turn: never starts, and rejects with the reason', async () => {
    const loop = crankedLoop();
    const turns = new ForkTurns(loop.schedule);
    turns.inTurn(of('started')).subscribe();
    const run = runGrep(['-nE', 'needle'], text, options(turns));
    const reason = new PtyError('busy', 'the search was given up');
    run.stop(reason);
    run.stop(new PtyError('closing', 'a later reason loses'));
    expect(turns.queued).toBe(0);
    await expect(run.done).rejects.toBe(reason);
    await loop.turn();
    await loop.turn();
    expect(liveChildren()).toEqual([]);
  });
});
