import { type ChildProcess, spawn } from 'node:child_process';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { type LoopDelay, loopDelay } from '../lib/loop-delay.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { Row } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { MAX_SESSIONS_PER_OWNER } from '../../src/limits.js';
import { isRunning } from '../../src/testkit/processes.js';
import { fullGc, log, sleep } from '../lib/util.js';

/** Idle processes the machine runs besides: a developer's desktop runs several hundred to a thousand. */
const OTHER_PROCESSES = 1_000;
const P99_LIMIT_MS = 20;
const RESOLUTION_MS = 1;
const OWNER = 'bench-exits';
const WARMUP_MS = 50;
const SETTLE_MS = 200;

type Measured = Record<'busy' | 'quiet', { p99: number; max: number }>;

/**
 * The host's event-loop delay with OTHER_PROCESSES idle processes on the machine and with none: while PTYs start
 * and end one after another (`true`, with its exit notification), and while an owner with the most PTYs it may
 * have is deleted (every one swept at once). Every start, end and sweep reads /proc (the session's leader, the
 * members left): a full scan reads one stat file per process on the machine, so this is where a busy machine would
 * show in the host's responsiveness.
 */
export async function exitLag(cfg: BenchConfig): Promise<Row[]> {
  const ptys = pick(cfg, 5, 20);
  const harness = await PluginHarness.open();
  const others: ChildProcess[] = [];
  const result: Measured = { busy: { p99: 0, max: 0 }, quiet: { p99: 0, max: 0 } };
  const deletion: Measured = { busy: { p99: 0, max: 0 }, quiet: { p99: 0, max: 0 } };
  try {
    for (const side of ['quiet', 'busy'] as const) {
      if (side === 'busy') {
        for (let i = 0; i < OTHER_PROCESSES; i++) others.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
        await sleep(500);
      }
      fullGc();
      const histogram = loopDelay(RESOLUTION_MS);
      for (let i = 0; i < ptys; i++) {
        histogram.enable();
        const { id } = await harness.call<{ id: string }>(
          'pty_spawn',
          { command: 'true', description: 'bench', notifyOnExit: true },
          OWNER,
        );
        await harness.waitExit(id);
        histogram.disable();
        await harness.kill(OWNER, id);
      }
      result[side] = delays(histogram);
      log(
        `  exits (${side}): event-loop delay p99 ${result[side].p99.toFixed(1)} ms, max ${result[side].max.toFixed(1)}`,
      );
      deletion[side] = await deleteFullOwner(harness, `${OWNER}-${side}`);
      log(`  owner deleted (${side}): event-loop delay max ${deletion[side].max.toFixed(1)} ms`);
    }
  } finally {
    for (const other of others) other.kill();
    await harness.dispose();
  }
  const name = `${ptys} PTYs started and ended one at a time, ${OTHER_PROCESSES} other processes on the machine`;
  const deleted = `an owner with ${MAX_SESSIONS_PER_OWNER} running PTYs deleted, ${OTHER_PROCESSES} other processes on the machine`;
  return [
    row(`${name}: event-loop delay p99`, result, 'p99', true),
    row(`${name}: event-loop delay max`, result, 'max', false),
    row(`${deleted}: event-loop delay max`, deletion, 'max', true),
  ];
}

/** Its p99 and max, the histogram's period taken off (its samples are period + delay). */
function delays(histogram: LoopDelay): { p99: number; max: number } {
  return { p99: histogram.percentile(99), max: histogram.max };
}

/** One result row, busy against quiet; `limited`: the busy side is held to P99_LIMIT_MS. */
function row(name: string, measured: Measured, key: 'p99' | 'max', limited: boolean): Row {
  return {
    suite: 'exits',
    name,
    unit: 'ms',
    a: { label: `${OTHER_PROCESSES} other processes`, summary: summarize([measured.busy[key]]) },
    b: { label: 'none', summary: summarize([measured.quiet[key]]) },
    target: limited ? `≤ ${P99_LIMIT_MS} ms` : '—',
    met: limited ? measured.busy[key] <= P99_LIMIT_MS : null,
  };
}

/** Deletes an owner running MAX_SESSIONS_PER_OWNER PTYs, and measures the loop until every one has ended. */
async function deleteFullOwner(harness: PluginHarness, owner: string): Promise<{ p99: number; max: number }> {
  const pids: number[] = [];
  for (let i = 0; i < MAX_SESSIONS_PER_OWNER; i++) {
    const { pid } = await harness.call<{ pid: number }>(
      'pty_spawn',
      { command: 'sleep', args: ['600'], description: 'bench' },
      owner,
    );
    pids.push(pid);
  }
  fullGc();
  const histogram = loopDelay(RESOLUTION_MS);
  histogram.enable();
  // A delay is recorded only between two of the monitor's ticks: let it tick before the deletion.
  await sleep(WARMUP_MS);
  await harness.host.deleteSession(owner);
  while (pids.some(isRunning)) await sleep(10);
  // What follows the ends (the scans for members left) is part of it.
  await sleep(SETTLE_MS);
  histogram.disable();
  return delays(histogram);
}
