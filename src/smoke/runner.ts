import { orphanGuard } from '../engine/orphan-guard.js';
import { sleep, waitFor } from '../testkit/waits.js';
import { SmokeFailure } from './expect.js';
import type { SmokeBackend } from './backends.js';
import { realBackend } from './backends.js';
import { SmokeHarness } from './harness.js';
import {
  childrenOfSelf,
  describeProcess,
  holdings,
  killQuietly,
  openDescriptors,
  type Holdings,
} from '../testkit/processes.js';
import type { Scenario } from './scenario.js';
import { CLEANUP_SETTLE_MS, POLL_MS, SCENARIO_TIMEOUT_MS } from './timing.js';

export interface RunResult {
  readonly scenario: string;
  readonly run: number;
  readonly ok: boolean;
  readonly ms: number;
  /** What was expected and what was seen, when it failed (the scenario's own failure, then cleanup's). */
  readonly error?: string;
}

/** What is left behind after a run, as readable problems (empty: clean). */
function leftovers(before: Holdings, harness: SmokeHarness): string[] {
  const problems: string[] = [];
  const survivors = harness.survivors();
  if (survivors.length > 0) {
    problems.push(
      `expected no process left in the PTY sessions, saw ${survivors.length}: ${survivors.map(describeProcess).join(', ')}`,
    );
  }
  const children = childrenOfSelf().filter((p) => !before.children.has(p.pid));
  const zombies = children.filter((p) => p.state === 'Z');
  const live = children.filter((p) => p.state !== 'Z');
  if (live.length > 0)
    problems.push(`expected no child process of the smoke run left, saw ${live.map(describeProcess).join(', ')}`);
  if (zombies.length > 0)
    problems.push(`expected no zombie child left, saw ${zombies.map(describeProcess).join(', ')}`);
  const fds = openDescriptors();
  const added = [...fds].filter(([fd, target]) => before.fds.get(fd) !== target);
  if (fds.size > before.fds.size) {
    problems.push(
      `expected ${before.fds.size} open descriptors as before the run, saw ${fds.size}` +
        (added.length > 0 ? ` (new: ${added.map(([fd, target]) => `${fd} → ${target}`).join(', ')})` : ''),
    );
  }
  return problems;
}

/** Waits (bounded) until the run has left nothing behind; then ends whatever is still there, and says what it was. */
async function checkClean(before: Holdings, harness: SmokeHarness): Promise<string[]> {
  const deadline = Date.now() + CLEANUP_SETTLE_MS;
  let problems = leftovers(before, harness);
  while (problems.length > 0 && Date.now() < deadline) {
    await sleep(POLL_MS);
    problems = leftovers(before, harness);
  }
  if (problems.length > 0) {
    // Leave the machine as it was for the next run, whatever this one did.
    for (const p of harness.survivors()) killQuietly(p.pid);
    for (const p of childrenOfSelf()) if (!before.children.has(p.pid) && p.state !== 'Z') killQuietly(p.pid);
  }
  return problems;
}

function runBounded(scenario: Scenario, harness: SmokeHarness): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SmokeFailure(`expected the scenario to finish within ${SCENARIO_TIMEOUT_MS} ms, saw it still running`),
        ),
      SCENARIO_TIMEOUT_MS,
    );
  });
  return Promise.race([scenario.run(harness), hung]).finally(() => clearTimeout(timer));
}

function message(err: unknown): string {
  if (err instanceof SmokeFailure) return err.message;
  return err instanceof Error ? `unexpected error: ${err.stack ?? err.message}` : `unexpected error: ${String(err)}`;
}

/**
 * Runs one scenario once against `backend`: the scenario itself, then dispose of every plugin it loaded,
 * then the cleanup check (no process in any of its PTY sessions, no child or zombie, no new descriptor).
 */
export async function runScenarioOnce(
  scenario: Scenario,
  backend: SmokeBackend = realBackend,
  run = 1,
): Promise<RunResult> {
  // The orphan guard may still be waiting for a next PTY from the last run, holding a pipe: counted from none.
  orphanGuard.stopIfIdle();
  // (A guard with sessions left, not this runner's, stays; the count then starts with it.)
  await waitFor(() => orphanGuard.pids.size === 0 || undefined, 'the idle guard to exit', CLEANUP_SETTLE_MS).catch(
    () => undefined,
  );
  const before = holdings();
  const started = performance.now();
  const errors: string[] = [];
  const harness = new SmokeHarness(backend);
  try {
    await runBounded(scenario, harness);
  } catch (err) {
    errors.push(message(err));
  }
  try {
    await harness.close();
  } catch (err) {
    errors.push(`dispose: ${message(err)}`);
  }
  const ms = performance.now() - started;
  for (const problem of await checkClean(before, harness)) errors.push(`cleanup: ${problem}`);
  return {
    scenario: scenario.name,
    run,
    ok: errors.length === 0,
    ms,
    ...(errors.length > 0 ? { error: errors.join('\n') } : {}),
  };
}

/**
 * The first PTY and the first grep of a process open descriptors Node keeps for good (its child-process
 * signal machinery). One throw-away PTY and search before the first baseline keep them out of the count.
 */
export async function warmUp(backend: SmokeBackend = realBackend): Promise<void> {
  const harness = new SmokeHarness(backend);
  try {
    const { session } = await harness.session('ses_smoke_warmup');
    const pty = await session.call<{ id: string }>('pty_spawn', { command: 'true', description: 'warm-up' });
    await session.attempt('pty_read', { id: pty.id, pattern: 'x' });
  } finally {
    await harness.close();
  }
}

export interface SmokeOptions {
  readonly scenarios: readonly Scenario[];
  readonly runs: number;
  readonly backend?: SmokeBackend;
  /** Called after every scenario run, with its position ([run/runs]). */
  readonly onResult?: (result: RunResult, runs: number) => void;
}

export interface ScenarioSummary {
  readonly scenario: string;
  readonly summary: string;
  readonly passes: number;
  readonly runs: number;
  readonly medianMs: number;
  readonly maxMs: number;
  readonly failures: ReadonlyArray<{ run: number; error: string }>;
}

export interface SmokeReport {
  readonly ok: boolean;
  readonly backend: string;
  readonly runs: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly totalMs: number;
  readonly environment: {
    readonly node: string;
    readonly platform: string;
    readonly arch: string;
    readonly pid: number;
  };
  readonly scenarios: readonly ScenarioSummary[];
  readonly results: readonly RunResult[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs every scenario `runs` times, round by round (each round runs every scenario once, in order). */
export async function runSmoke(options: SmokeOptions): Promise<SmokeReport> {
  const backend = options.backend ?? realBackend;
  const startedAt = new Date();
  const t0 = performance.now();
  await warmUp();
  const results: RunResult[] = [];
  for (let run = 1; run <= options.runs; run++) {
    for (const scenario of options.scenarios) {
      const result = await runScenarioOnce(scenario, backend, run);
      results.push(result);
      options.onResult?.(result, options.runs);
    }
  }
  const scenarios = options.scenarios.map((s): ScenarioSummary => {
    const mine = results.filter((r) => r.scenario === s.name);
    return {
      scenario: s.name,
      summary: s.summary,
      passes: mine.filter((r) => r.ok).length,
      runs: mine.length,
      medianMs: Math.round(median(mine.map((r) => r.ms))),
      maxMs: Math.round(Math.max(0, ...mine.map((r) => r.ms))),
      failures: mine.filter((r) => !r.ok).map((r) => ({ run: r.run, error: r.error ?? '' })),
    };
  });
  return {
    ok: results.every((r) => r.ok),
    backend: backend.name,
    runs: options.runs,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    totalMs: Math.round(performance.now() - t0),
    environment: { node: process.version, platform: process.platform, arch: process.arch, pid: process.pid },
    scenarios,
    results: results.map((r) => ({ ...r, ms: Math.round(r.ms) })),
  };
}
