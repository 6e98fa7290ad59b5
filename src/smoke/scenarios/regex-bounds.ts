import type { MatchesRead, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual, expectThat } from '../expect.js';
import { ended } from '../harness.js';
import { childrenOfSelf, commOf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { GREP_CPU_BUDGET_MS, GREP_QUEUE_TIMEOUT_MS, GREP_WALL_TIMEOUT_MS, MAX_GREP_WORKERS } from '../../limits.js';

/** A prime count of a's: `^(aa+)\1+$` matches only composite lengths, so the backtracking tries everything. */
const A_COUNT = 40_009;
const CATASTROPHIC = '^(aa+)\\1+$';
const CONCURRENT = 6;
/** Past grep's wall timeout: spawning grep and killing it. Unbounded, this search runs for minutes. */
const STOP_MARGIN_MS = 1_000;
/** How often the grep processes are counted while searches run. */
const SAMPLE_MS = 2;

/** Counts grep children of the smoke process while `work` runs; returns the most seen at once. */
async function peakGreps<T>(work: Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, childrenOfSelf().filter((p) => p.state !== 'Z' && commOf(p.pid) === 'grep').length);
  };
  const timer = setInterval(sample, SAMPLE_MS);
  try {
    const result = await work;
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

export const regexBounds: Scenario = {
  name: 'regex-bounds',
  summary: `catastrophic ${CATASTROPHIC} on ${A_COUNT} a's is stopped (pattern_too_expensive); ${CONCURRENT} concurrent searches use at most ${MAX_GREP_WORKERS} greps`,
  async run(h) {
    const { session } = await h.session('ses_smoke_regex');
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: ['-c', `head -c ${A_COUNT} /dev/zero | tr '\\000' a; echo; echo needle one; echo needle two`],
      description: 'regex target',
    });
    await ended(session, pty.id);
    const size = await session.call<MatchesRead>('pty_read', { id: pty.id, pattern: '^a+$' });
    expectEqual([size.matches, size.lines[0]?.cutFrom], [1, A_COUNT], "the line of a's (matches, full length)");

    const start = performance.now();
    const expensive = await session.attempt('pty_read', { id: pty.id, pattern: CATASTROPHIC });
    const took = performance.now() - start;
    expectEqual(expensive.ok ? 'success' : expensive.code, 'pattern_too_expensive', `pty_read with ${CATASTROPHIC}`);
    // Stopped once grep had used its CPU budget (the message says how much it used), and never past the wall timeout.
    const usedMs = Number(/after (\d+) ms of grep's CPU time/.exec(expensive.ok ? '' : expensive.message)?.[1]);
    expectThat(
      usedMs,
      (ms) => ms >= GREP_CPU_BUDGET_MS && ms < GREP_CPU_BUDGET_MS + STOP_MARGIN_MS,
      `at least the ${GREP_CPU_BUDGET_MS} ms budget, under ${GREP_CPU_BUDGET_MS + STOP_MARGIN_MS}`,
      "grep's CPU time when the catastrophic search was stopped",
    );
    expectThat(
      Math.round(took),
      (ms) => ms < GREP_WALL_TIMEOUT_MS + STOP_MARGIN_MS,
      `under ${GREP_WALL_TIMEOUT_MS + STOP_MARGIN_MS} ms`,
      'time to refuse the catastrophic search',
    );

    // Several catastrophic searches at once: each is stopped, never more than MAX_GREP_WORKERS run.
    const bad = await peakGreps(
      Promise.all(
        Array.from({ length: CONCURRENT }, () => session.attempt('pty_read', { id: pty.id, pattern: CATASTROPHIC })),
      ),
    );
    expectEqual(
      bad.result.map((o) => (o.ok ? 'success' : o.code)),
      Array(CONCURRENT).fill('pattern_too_expensive'),
      `${CONCURRENT} concurrent catastrophic searches`,
    );
    expectThat(
      bad.peak,
      (n) => n >= 1 && n <= MAX_GREP_WORKERS,
      `between 1 and ${MAX_GREP_WORKERS} greps at once`,
      'greps running at the peak',
    );

    const good = await peakGreps(
      Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          session.attempt<MatchesRead>('pty_read', { id: pty.id, pattern: 'needle (one|two)' }),
        ),
      ),
    );
    expectEqual(
      good.result.map((o) => (o.ok ? o.value.lines?.map((l) => l.line) : o.code)),
      Array(CONCURRENT).fill([2, 3]),
      `${CONCURRENT} concurrent cheap searches (matching line numbers; none waits past ${GREP_QUEUE_TIMEOUT_MS} ms)`,
    );
    expectThat(
      good.peak,
      (n) => n <= MAX_GREP_WORKERS,
      `at most ${MAX_GREP_WORKERS} greps at once`,
      'greps running at the peak (cheap)',
    );
  },
};
