import { allProcesses, childrenOf, readStat } from '../../src/engine/procfs.js';
import { TERMINATE_GRACE_MS } from '../../src/limits.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { Row } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { log, rotation, sleep } from '../lib/util.js';

const OWNER = 'bench-kill';
const POLL_MS = 2;
const TREE_SIZE = 3;

/** bash and two background sleeps, TERM (and HUP) ignored by all three: ignored signals survive fork and exec. */
const IGNORING = 'trap "" TERM HUP; sleep 600 & sleep 600 & wait';
const RESPECTING = 'sleep 600 & sleep 600 & wait';

interface Member {
  readonly pid: number;
  readonly startTime: number;
}

async function treeOf(scriptPid: number): Promise<Member[]> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const leader = childrenOf(scriptPid).find((c) => c.sessionId === c.pid);
    if (leader) {
      const members = allProcesses().filter((p) => p.sessionId === leader.pid && p.state !== 'Z');
      if (members.length >= TREE_SIZE) return members.map((p) => ({ pid: p.pid, startTime: p.startTime }));
    }
    await sleep(10);
  }
  throw new Error('the process tree did not come up');
}

const alive = (m: Member) => {
  const s = readStat(m.pid);
  return s !== undefined && s.state !== 'Z' && s.startTime === m.startTime;
};

/**
 * Metric 7: pty_kill of a PTY whose whole process tree ignores SIGTERM, timed until no process of the tree is
 * left (polled in /proc every 2 ms), vs the same tree that lets TERM end it.
 */
export async function kill(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 1, 4);
  const harness = await PluginHarness.open();
  const gone: Record<'ignoring' | 'respecting', number[]> = { ignoring: [], respecting: [] };
  const returned: Record<'ignoring' | 'respecting', number[]> = { ignoring: [], respecting: [] };
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const kind of rotation(['ignoring', 'respecting'] as const, rep)) {
        const { id, pid } = await harness.call<{ id: string; pid: number }>(
          'pty_spawn',
          { command: 'bash', args: ['-c', kind === 'ignoring' ? IGNORING : RESPECTING], description: 'bench' },
          OWNER,
        );
        const tree = await treeOf(pid);
        const t0 = performance.now();
        let tGone: number | undefined;
        const watcher = setInterval(() => {
          if (tGone === undefined && !tree.some(alive)) tGone = performance.now() - t0;
        }, POLL_MS);
        await harness.kill(OWNER, id);
        const tReturned = performance.now() - t0;
        while (tGone === undefined && performance.now() - t0 < 15_000) await sleep(POLL_MS);
        clearInterval(watcher);
        if (tGone === undefined) throw new Error(`${kind}: the tree outlived pty_kill by 15 s`);
        gone[kind].push(tGone);
        returned[kind].push(tReturned);
      }
    }
  } finally {
    await harness.dispose();
  }
  const a = summarize(gone.ignoring);
  const b = summarize(gone.respecting);
  const limit = TERMINATE_GRACE_MS + 100;
  log(
    `  kill: TERM-ignoring tree gone after ${a.median.toFixed(0)} ms (pty_kill returned ${summarize(returned.ignoring).median.toFixed(0)} ms), TERM-respecting ${b.median.toFixed(0)} ms`,
  );
  return [
    {
      suite: 'kill',
      name: 'pty_kill → TERM-ignoring tree (bash + 2 sleeps) gone',
      unit: 'ms',
      a: { label: 'TERM-ignoring', summary: a, stat: 'max' },
      b: { label: 'TERM-respecting', summary: b },
      target: `≤ grace + 100 = ${limit} ms (max)`,
      met: a.max <= limit,
      extra: { returnedIgnoring: summarize(returned.ignoring), returnedRespecting: summarize(returned.respecting) },
    },
    {
      suite: 'kill',
      name: 'pty_kill call returns (TERM-ignoring)',
      unit: 'ms',
      a: { label: 'pty_kill returns', summary: summarize(returned.ignoring) },
      b: { label: 'TERM-respecting', summary: summarize(returned.respecting) },
      target: '—',
      met: null,
    },
  ];
}
