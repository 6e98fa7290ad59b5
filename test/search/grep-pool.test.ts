import { getEventListeners } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PtyError } from '../../src/errors.js';
import { GREP_CPU_BUDGET_MS, MAX_GREP_QUEUE, MAX_GREP_WORKERS, MAX_PATTERN_CHARS } from '../../src/limits.js';
import { GrepPool, type GrepPoolLoad, type GrepRequest } from '../../src/search/grep-pool.js';
import { childrenOfSelf } from '../../src/testkit/processes.js';
import { waitFor } from '../../src/testkit/waits.js';

/**
 * Exponential with glibc's back-reference matcher: "is the length composite?" tried by backtracking. On a
 * line of a prime number (40009) of `a`s it never matches and runs for far longer than 3 s on this machine
 * (measured: killed by `timeout 3`), against well under 1 ms for plain patterns.
 */
const CATASTROPHIC: Pick<GrepRequest, 'text' | 'pattern'> = { text: `${'a'.repeat(40_009)}\n`, pattern: '^(aa+)\\1+$' };

const request = (overrides: Partial<GrepRequest> = {}): GrepRequest => ({
  text: 'alpha\nbeta\ngamma beta\n',
  pattern: 'beta',
  ignoreCase: false,
  maxMatches: 100,
  ...overrides,
});

const slow = (overrides: Partial<GrepRequest> = {}) => request({ ...CATASTROPHIC, ...overrides });

const grepChildren = () => childrenOfSelf({ withOrphanGuard: true }).filter((child) => child.comm === 'grep');

/** The PtyError the promise rejects with (fails the test when it resolves or rejects with something else). */
async function rejection(promise: Promise<unknown>): Promise<PtyError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
  if (!('err' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.err).toBeInstanceOf(PtyError);
  return outcome.err as PtyError;
}

/** Whether the promise has settled by the time already-queued callbacks ran (no process could have run). */
async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

/** Records the highest load the pool reported. */
function loadRecorder() {
  const peak = { running: 0, queued: 0 };
  const onLoadChange = (load: GrepPoolLoad) => {
    peak.running = Math.max(peak.running, load.running);
    peak.queued = Math.max(peak.queued, load.queued);
  };
  return { peak, onLoadChange };
}

/** Stand-in greps, each a shell script in one directory removed after the suite. */
const standIns = mkdtempSync(join(tmpdir(), 'local-pty-grep-'));
afterAll(() => rmSync(standIns, { recursive: true, force: true }));
function standIn(name: string, body: string): string {
  const path = join(standIns, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const pools: GrepPool[] = [];
function newPool(...args: ConstructorParameters<typeof GrepPool>): GrepPool {
  const pool = new GrepPool(...args);
  pools.push(pool);
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  expect(grepChildren()).toEqual([]);
});

describe('GrepPool', () => {
  describe('searching', () => {
    it('returns matching lines with grep line numbers', async () => {
      await expect(newPool().search(request())).resolves.toEqual([
        { lineNumber: 2, text: 'beta' },
        { lineNumber: 3, text: 'gamma beta' },
      ]);
    });

    it('reads extended regular expressions', async () => {
      const text = 'error: disk\nwarning: x\nERROR 2\nok\n';
      await expect(newPool().search(request({ text, pattern: '^(error|warning):' }))).resolves.toEqual([
        { lineNumber: 1, text: 'error: disk' },
        { lineNumber: 2, text: 'warning: x' },
      ]);
    });

    it('ignores case only when asked, for non-ASCII letters too', async () => {
      const pool = newPool();
      const text = 'ÉCOLE\nécole\nError\nerror\n';
      await expect(pool.search(request({ text, pattern: 'école' }))).resolves.toEqual([
        { lineNumber: 2, text: 'école' },
      ]);
      await expect(pool.search(request({ text, pattern: 'école', ignoreCase: true }))).resolves.toEqual([
        { lineNumber: 1, text: 'ÉCOLE' },
        { lineNumber: 2, text: 'école' },
      ]);
      await expect(pool.search(request({ text, pattern: 'error', ignoreCase: true }))).resolves.toHaveLength(2);
    });

    it('stops after maxMatches lines', async () => {
      const text = Array.from({ length: 10 }, (_, i) => `match ${i}`).join('\n');
      await expect(newPool().search(request({ text, pattern: 'match', maxMatches: 3 }))).resolves.toEqual([
        { lineNumber: 1, text: 'match 0' },
        { lineNumber: 2, text: 'match 1' },
        { lineNumber: 3, text: 'match 2' },
      ]);
    });

    it('returns no matches as an empty list', async () => {
      await expect(newPool().search(request({ pattern: 'delta' }))).resolves.toEqual([]);
    });

    it('searches a last line without a newline, and text with control characters', async () => {
      const text = 'one\n\u001b[31mred\u001b[0m\ttab\rcr\nlast';
      await expect(newPool().search(request({ text, pattern: 'red|last' }))).resolves.toEqual([
        { lineNumber: 2, text: '\u001b[31mred\u001b[0m\ttab\rcr' },
        { lineNumber: 3, text: 'last' },
      ]);
    });

    it('takes a pattern that starts with a dash as a pattern', async () => {
      await expect(newPool().search(request({ text: 'a\n-v flag\n', pattern: '-v' }))).resolves.toEqual([
        { lineNumber: 2, text: '-v flag' },
      ]);
    });

    it('swallows the EPIPE when grep stops reading early (-m) under a large text', async () => {
      const text = `wanted\n${'filler line\n'.repeat(200_000)}`;
      await expect(newPool().search(request({ text, pattern: 'wanted', maxMatches: 1 }))).resolves.toEqual([
        { lineNumber: 1, text: 'wanted' },
      ]);
    });

    it('keeps only the complete lines when output passes maxStdoutChars, and stops grep', async () => {
      const text = `${'match line\n'.repeat(100_000)}`;
      const matches = await newPool({ maxStdoutChars: 50 }).search(
        request({ text, pattern: 'match', maxMatches: 100_000 }),
      );
      // Each output line is `N:match line\n` (13 or 14 characters): three fit in 50, the fourth is cut.
      expect(matches).toEqual([1, 2, 3].map((lineNumber) => ({ lineNumber, text: 'match line' })));
    });
  });

  describe('refusing bad input before any grep starts', () => {
    const refused = async (overrides: Partial<GrepRequest>, expected: string) => {
      const { peak, onLoadChange } = loadRecorder();
      const error = await rejection(newPool({ onLoadChange }).search(request(overrides)));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(expected);
      expect(peak.running).toBe(0);
    };

    it('refuses a pattern over MAX_PATTERN_CHARS', async () => {
      await expect(newPool().search(request({ pattern: 'x'.repeat(MAX_PATTERN_CHARS) }))).resolves.toEqual([]);
      await refused({ pattern: 'x'.repeat(MAX_PATTERN_CHARS + 1) }, `limit of ${MAX_PATTERN_CHARS}`);
    });

    it('refuses a NUL in the pattern', async () => {
      await refused({ pattern: 'a\0b' }, 'NUL');
    });

    it('refuses a newline in the pattern (grep would read it as "or")', async () => {
      await refused({ pattern: 'beta\nalpha' }, 'newline');
    });

    it.each([0, -1, 1.5, Number.NaN])('refuses maxMatches %p', async (maxMatches) => {
      await refused({ maxMatches }, 'maxMatches');
    });
  });

  describe('grep failures', () => {
    it('reports an invalid pattern with grep’s own message', async () => {
      const error = await rejection(newPool().search(request({ pattern: 'a(b' })));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain('Unmatched ( or \\(');
      expect(error.message).toContain('Fix the regular expression');
    });

    it('keeps at most maxStderrChars of grep’s stderr', async () => {
      const error = await rejection(newPool({ maxStderrChars: 5 }).search(request({ pattern: 'a(b' })));
      expect(error.message).not.toContain('Unmatched');
      expect(error.message).toContain('grep rejected the pattern: /usr/');
    });

    it('reports a grep that cannot be started', async () => {
      const error = await rejection(newPool({ grepPath: '/nonexistent/grep' }).search(request()));
      expect(error.code).toBe('spawn_failed');
      expect(error.message).toContain('/nonexistent/grep');
      expect(error.message).toContain('ENOENT');
    });
  });

  describe('expensive patterns', () => {
    it('kills grep once it has used GREP_CPU_BUDGET_MS of CPU time and says the pattern is too expensive', async () => {
      const pool = newPool();
      const started = Date.now();
      const error = await rejection(pool.search(slow()));
      const elapsed = Date.now() - started;
      expect(error.code).toBe('pattern_too_expensive');
      expect(error.message).toContain(`(GREP_CPU_BUDGET_MS = ${GREP_CPU_BUDGET_MS},`);
      const used = Number(/after (\d+) ms of grep's CPU time/.exec(error.message)?.[1]);
      expect(used).toBeGreaterThanOrEqual(GREP_CPU_BUDGET_MS);
      expect(error.message).toContain('simpler pattern');
      // The pattern runs for seconds when left alone; the bound is loose because the machine is shared.
      expect(elapsed).toBeLessThan(2_000);
      expect(grepChildren()).toEqual([]);
      // The pool is still usable afterwards.
      await expect(pool.search(request())).resolves.toHaveLength(2);
    });

    it('does not call a grep that waited for the CPU too expensive: the budget is CPU time, not wall time', async () => {
      // Sleeps (no CPU) three budgets long before it searches, as a grep on a busy machine waits for a core.
      const pool = newPool({ grepPath: standIn('late-grep', 'sleep 0.3; exec /usr/bin/grep "$@"'), cpuBudgetMs: 100 });
      await expect(pool.search(request())).resolves.toEqual([
        { lineNumber: 2, text: 'beta' },
        { lineNumber: 3, text: 'gamma beta' },
      ]);
    });

    it('stops a grep that gets no CPU at the wall timeout, as busy, saying how much it had', async () => {
      const pool = newPool({
        grepPath: standIn('starved-grep', 'exec sleep 30'),
        cpuBudgetMs: 100,
        wallTimeoutMs: 300,
      });
      const started = Date.now();
      const error = await rejection(pool.search(request()));
      const elapsed = Date.now() - started;
      expect(error.code).toBe('busy');
      expect(error.message).toMatch(/having had only \d+ ms of CPU time/);
      expect(error.message).toContain('(GREP_WALL_TIMEOUT_MS = 300)');
      expect(error.message).toContain('Nothing is wrong with the pattern');
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(2_000);
      await waitFor(() => pool.load.running === 0, 'the pool frees the worker');
      expect(childrenOfSelf({ withOrphanGuard: true }).filter((c) => c.comm === 'sleep')).toEqual([]);
    });
  });

  describe('workers and queue', () => {
    it('runs at most MAX_GREP_WORKERS at once; a fifth search waits, then succeeds', async () => {
      const { peak, onLoadChange } = loadRecorder();
      const pool = newPool({ onLoadChange });
      const searches = Array.from({ length: MAX_GREP_WORKERS + 1 }, (_, i) =>
        pool.search(request({ text: `x\nline ${i}\n`, pattern: `line ${i}` })),
      );
      expect(pool.load).toEqual({ running: MAX_GREP_WORKERS, queued: 1 });
      const results = await Promise.all(searches);
      for (const [i, matches] of results.entries()) expect(matches).toEqual([{ lineNumber: 2, text: `line ${i}` }]);
      expect(peak).toEqual({ running: MAX_GREP_WORKERS, queued: 1 });
    });

    it('searches texts given in parts, each running search its own text while its pipe is still being written', async () => {
      const pool = newPool();
      // Far more than a pipe holds: the first text is still being written when the second search starts.
      const first = ['filler line\n'.repeat(100_000), 'needle é one\n'];
      const second = ['other line\n'.repeat(100_000), 'needle é two\n', 'tail\n'];
      const searches = [first, second].map((text) => pool.search(request({ text, pattern: 'needle' })));
      await expect(Promise.all(searches)).resolves.toEqual([
        [{ lineNumber: 100_001, text: 'needle é one' }],
        [{ lineNumber: 100_001, text: 'needle é two' }],
      ]);
      // The kept buffer is free again for the next search.
      await expect(pool.search(request({ text: ['a\n', 'needle é three\n'], pattern: 'needle' }))).resolves.toEqual([
        { lineNumber: 2, text: 'needle é three' },
      ]);
    });

    it('never runs more than MAX_GREP_WORKERS over many mixed searches, and leaves no grep behind', async () => {
      const { peak, onLoadChange } = loadRecorder();
      // The default bounds: grep's CPU time, not the wall time a loaded machine makes it wait, is what is bounded.
      const pool = newPool({ onLoadChange });
      const searches = Array.from(
        { length: 60 },
        (_, i) => () =>
          i % 15 === 0
            ? pool.search(slow()).then(
                () => 'resolved',
                (err: PtyError) => err.code,
              )
            : pool
                .search(request({ text: `${'noise\n'.repeat(i * 100)}hit ${i}\n`, pattern: `hit ${i}$` }))
                .then((m) => m.length),
      );
      // 60 at once is past MAX_GREP_QUEUE, so they start in batches that fit.
      const batch = MAX_GREP_WORKERS + MAX_GREP_QUEUE;
      const outcomes: Array<number | string> = [];
      for (let i = 0; i < searches.length; i += batch) {
        outcomes.push(...(await Promise.all(searches.slice(i, i + batch).map((start) => start()))));
      }
      expect(peak.running).toBeLessThanOrEqual(MAX_GREP_WORKERS);
      expect(outcomes).toEqual(searches.map((_, i) => (i % 15 === 0 ? 'pattern_too_expensive' : 1)));
      expect(grepChildren()).toEqual([]);
    });

    it('refuses at once a search past MAX_GREP_QUEUE waiting ones, then serves the queue in order', async () => {
      const { peak, onLoadChange } = loadRecorder();
      const pool = newPool({ onLoadChange });
      const running = Array.from({ length: MAX_GREP_WORKERS }, () => rejection(pool.search(slow())));
      const queued = Array.from({ length: MAX_GREP_QUEUE }, () => pool.search(request()));
      expect(pool.load).toEqual({ running: MAX_GREP_WORKERS, queued: MAX_GREP_QUEUE });

      const refused = pool.search(request());
      expect(await settledAtOnce(refused)).toBe(true);
      const error = await rejection(refused);
      expect(error.code).toBe('busy');
      expect(error.message).toContain(`MAX_GREP_QUEUE = ${MAX_GREP_QUEUE}`);
      expect(error.message).toContain('try again');

      for (const failure of await Promise.all(running)) expect(failure.code).toBe('pattern_too_expensive');
      for (const matches of await Promise.all(queued)) expect(matches).toHaveLength(2);
      expect(peak).toEqual({ running: MAX_GREP_WORKERS, queued: MAX_GREP_QUEUE });
    });

    it('starts waiting searches in arrival order', async () => {
      const pool = newPool({ maxWorkers: 1 });
      const finished: number[] = [];
      const blocker = rejection(pool.search(slow()));
      const queued = Array.from({ length: 5 }, (_, i) =>
        pool
          .search(request({ text: `line ${i}\n`, pattern: 'line' }))
          .then(([match]) => finished.push(Number(match?.text.slice(5)))),
      );
      expect((await blocker).code).toBe('pattern_too_expensive');
      await Promise.all(queued);
      // One worker runs them one after the other, so the order they finish in is the order they started in.
      expect(finished).toEqual([0, 1, 2, 3, 4]);
    });

    it('gives up on a search that waited longer than queueTimeoutMs', async () => {
      const pool = newPool({ maxWorkers: 1, queueTimeoutMs: 50, cpuBudgetMs: 5_000, wallTimeoutMs: 5_000 });
      const blocker = rejection(pool.search(slow()));
      const error = await rejection(pool.search(request()));
      expect(error.code).toBe('busy');
      expect(error.message).toContain('stayed busy for 50 ms (GREP_QUEUE_TIMEOUT_MS)');
      expect(pool.load).toEqual({ running: 1, queued: 0 });
      await pool.close();
      expect((await blocker).code).toBe('closing');
    });
  });

  describe('cancelling', () => {
    it('removes an aborted waiting search from the queue, with the abort reason and no listener left', async () => {
      const pool = newPool({ maxWorkers: 1, cpuBudgetMs: 5_000, wallTimeoutMs: 5_000 });
      const blocker = rejection(pool.search(slow()));
      const controller = new AbortController();
      const waiting = pool.search(request({ signal: controller.signal }));
      expect(pool.load.queued).toBe(1);
      const reason = new PtyError('owner_deleted', 'the session that owns this terminal was deleted.');
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      expect(pool.load.queued).toBe(0);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await pool.close();
      await blocker;
    });

    it('kills the grep of an aborted running search and settles once it is gone', async () => {
      const pool = newPool({ cpuBudgetMs: 5_000, wallTimeoutMs: 5_000 });
      const controller = new AbortController();
      const searching = rejection(pool.search(slow({ signal: controller.signal })));
      await waitFor(() => grepChildren().length === 1, 'grep runs');
      controller.abort();
      const error = await searching;
      expect(error.code).toBe('closing');
      expect(error.message).toContain('cancelled');
      expect(grepChildren()).toEqual([]);
      await waitFor(() => pool.load.running === 0, 'the pool frees the worker');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('refuses an already aborted signal without starting grep', async () => {
      const { peak, onLoadChange } = loadRecorder();
      const error = await rejection(newPool({ onLoadChange }).search(request({ signal: AbortSignal.abort() })));
      expect(error.code).toBe('closing');
      expect(peak.running).toBe(0);
    });

    it('removes the abort listener of a search that finished', async () => {
      const pool = newPool();
      const controller = new AbortController();
      await pool.search(request({ signal: controller.signal }));
      await waitFor(() => pool.load.running === 0, 'the pool frees the worker');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('close', () => {
    it('rejects waiting searches, kills running ones and resolves once every grep has exited', async () => {
      const pool = newPool({ cpuBudgetMs: 10_000, wallTimeoutMs: 10_000 });
      const running = Array.from({ length: MAX_GREP_WORKERS }, () => rejection(pool.search(slow())));
      const queued = Array.from({ length: 3 }, () => rejection(pool.search(request())));
      await waitFor(() => grepChildren().length === MAX_GREP_WORKERS, 'all workers run');

      const started = Date.now();
      await pool.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(grepChildren()).toEqual([]);
      expect(pool.load).toEqual({ running: 0, queued: 0 });
      for (const error of await Promise.all([...running, ...queued])) {
        expect(error.code).toBe('closing');
        expect(error.message).toContain('shutting down');
      }
    });

    it('is idempotent, and searches after it are refused at once', async () => {
      const pool = newPool();
      await Promise.all([pool.close(), pool.close()]);
      const after = pool.search(request());
      expect(await settledAtOnce(after)).toBe(true);
      expect((await rejection(after)).code).toBe('closing');
    });
  });
});
