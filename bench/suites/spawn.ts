import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { hostDescriptors } from '../../src/engine/inheritable-fds.js';
import { orphanGuard } from '../../src/engine/orphan-guard.js';
import { defaultWrapper, scriptInvocation } from '../../src/engine/script-invocation.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../../src/limits.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import { rawScript } from '../lib/raw.js';
import { pairedRatio, type Row } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { log, rotation } from '../lib/util.js';
import { sleep } from '../../src/testkit/waits.js';

const OWNER = 'bench-spawn';
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The reference the issue set its target on: raw `script -c 'echo ready'`, whose shell prints with its builtin
 * `echo` and starts no program. The plugin is asked to start one (`command: 'echo'` execs /usr/bin/echo), so
 * raw `script` is also timed starting that same program (`exec echo ready`, ≈1.1 ms more): an informational row,
 * the verdict stays on the stricter reference.
 */
const RAW_REFERENCE = 'echo ready';
const RAW_SAME_PROGRAM = 'exec echo ready';

type Side = 'plugin' | 'pluginPolled' | 'chain' | 'raw' | 'sameProgram';

/** Issue 14: within half the raw spawn again, plus 3 ms for what the plugin does that raw script does not. */
const spawnLimit = (rawMedianMs: number): number => 1.5 * rawMedianMs + 3;

/** A raw `script` spawned from Node: from the spawn to its first 'data' event. */
async function rawFirstByte(command: string): Promise<number> {
  const t0 = performance.now();
  const result = await rawScript(command, 'count').done;
  if (result.firstDataAt === null) throw new Error(`raw script (${command}) printed nothing`);
  return result.firstDataAt - t0;
}

/**
 * The plugin's own process chain (script → the wrapper → `echo ready`, behind setpriv only while no orphan guard
 * runs, as in the engine), spawned from Node as the engine spawns it, argv channel included, with no plugin around
 * it: from the spawn to its first 'data' event. It splits the plugin's time into the chain's and the plugin's own.
 */
function chainFirstByte(behindSetpriv: { count: number }): Promise<number> {
  const dieWithHost = !orphanGuard.running;
  if (dieWithHost) behindSetpriv.count++;
  const inv = scriptInvocation('echo', ['ready'], DEFAULT_ROWS, DEFAULT_COLS, {
    closeInheritedFds: hostDescriptors.held(),
    dieWithHost,
  });
  const t0 = performance.now();
  const child = spawn(inv.file, inv.args, {
    env: inv.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', ...(inv.argv === undefined ? [] : (['pipe'] as const))],
  });
  // The engine's argv channel: a socket pair, written and ended by the host, read back for the pid report.
  const channel = child.stdio[3] as Duplex | null | undefined;
  channel?.on('error', () => undefined);
  channel?.resume();
  channel?.end(inv.argv);
  let first: number | undefined;
  child.stdout!.once('data', () => (first = performance.now() - t0));
  child.stderr!.resume();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => (first === undefined ? reject(new Error('the chain printed nothing')) : resolve(first)));
  });
}

/**
 * Metric 6: from the pty_spawn call to the first output byte in the caller's hands, vs a raw
 * `script -q -e -E never -c 'echo ready' /dev/null` spawned from Node, to its first 'data' event.
 *
 * The plugin's side is timed two ways. The verdict: `pty_spawn` with `wait: {pattern}` (how the tools hand over a
 * first line: the call returns when it arrives), event-driven like the raw side. Information: `pty_read` polled
 * between I/O turns until the line shows (the suite's way until the fifteenth session). The poll keeps the host's
 * thread busy the whole time, and on 2 cores the chain's processes then share one: on a slow day it added 8 ms.
 */
export async function spawnLatency(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 6, 40);
  const harness = await PluginHarness.open();
  const plugin: number[] = [];
  const polled: number[] = [];
  const chain: number[] = [];
  const behindSetpriv = { count: 0 };
  const returned: number[] = [];
  const raw: number[] = [];
  const sameProgram: number[] = [];
  try {
    for (let i = -2; i < reps; i++) {
      for (const side of rotation<Side>(['plugin', 'pluginPolled', 'chain', 'raw', 'sameProgram'], i + 2)) {
        if (side === 'plugin') {
          const t0 = performance.now();
          const waited = await harness.call<{ id: string; reason: string }>(
            'pty_spawn',
            { command: 'echo', args: ['ready'], description: 'bench', wait: { pattern: '^ready$', timeoutMs: 10_000 } },
            OWNER,
          );
          const tFirst = performance.now() - t0;
          if (waited.reason !== 'match') throw new Error(`pty_spawn's wait ended by ${waited.reason}, not the line`);
          if (i >= 0) plugin.push(tFirst);
          await endAndRemove(harness, waited.id);
        } else if (side === 'pluginPolled') {
          const t0 = performance.now();
          const { id } = await harness.call<{ id: string }>(
            'pty_spawn',
            { command: 'echo', args: ['ready'], description: 'bench' },
            OWNER,
          );
          const tReturned = performance.now() - t0;
          for (;;) {
            const r = await harness.read(OWNER, { id, limit: 1 });
            if (r.totalLines > 0) break;
            await yieldToIo();
          }
          const tFirst = performance.now() - t0;
          if (i >= 0) {
            polled.push(tFirst);
            returned.push(tReturned);
          }
          await endAndRemove(harness, id);
        } else if (side === 'chain') {
          const t = await chainFirstByte(behindSetpriv);
          if (i >= 0) chain.push(t);
        } else {
          const t = await rawFirstByte(side === 'raw' ? RAW_REFERENCE : RAW_SAME_PROGRAM);
          if (i >= 0) (side === 'raw' ? raw : sameProgram).push(t);
        }
      }
    }
  } finally {
    await harness.dispose();
  }
  const a = summarize(plugin);
  const polledSummary = summarize(polled);
  const b = summarize(raw);
  const c = summarize(sameProgram);
  /** A plugin side's first byte over the raw one taken beside it, pair by pair. */
  const paired = (side: readonly number[], rawMs: readonly number[]) =>
    pairedRatio(summarize(side.map((p, k) => p / rawMs[k]!)));
  const limit = spawnLimit(b.median);
  log(
    `  spawn: plugin first byte ${a.median.toFixed(2)} ms with a wait, ${polledSummary.median.toFixed(2)} polled (pty_spawn returned at ${summarize(returned).median.toFixed(2)} ms), the chain alone ${summarize(chain).median.toFixed(2)} ms, raw ${b.median.toFixed(2)} ms (starting the same program, exec echo: ${c.median.toFixed(2)})`,
  );
  const waitedSide = { label: 'pty_spawn with a wait returns it', summary: a };
  const rawSide = { label: 'raw script from Node', summary: b };
  return [
    {
      ...firstByteRow('spawn → first output byte (echo ready)', waitedSide, rawSide, paired(plugin, raw)),
      target: `≤ 1.5×B + 3 ms (= ${limit.toFixed(1)})`,
      met: a.median <= limit,
      extra: { spawnReturnedMs: summarize(returned), rawSameProgramMs: c, polledMs: polledSummary },
    },
    firstByteRow(
      'spawn → first output byte, raw script starting the same program',
      waitedSide,
      { label: 'raw script from Node, exec echo', summary: c },
      paired(plugin, sameProgram),
    ),
    firstByteRow(
      `the plugin's chain alone, spawned from Node (${behindSetpriv.count > 0 ? `setpriv (${behindSetpriv.count} of ${chain.length + 2}) → ` : ''}script → ${defaultWrapper()} wrapper → echo)`,
      { label: 'chain from Node', summary: summarize(chain) },
      rawSide,
      paired(chain, raw),
    ),
    {
      suite: 'spawn',
      name: 'spawn → first output byte: the plugin over its own chain',
      unit: 'ms',
      a: waitedSide,
      b: { label: 'chain from Node', summary: summarize(chain) },
      ...paired(plugin, chain),
      target: '—',
      met: null,
    },
    firstByteRow(
      'spawn → first output byte, pty_read polled between I/O turns',
      { label: 'pty_spawn→pty_read sees it', summary: polledSummary },
      rawSide,
      paired(polled, raw),
    ),
    {
      suite: 'spawn',
      name: 'pty_spawn call returns (session leader found)',
      unit: 'ms',
      a: { label: 'pty_spawn returns', summary: summarize(returned) },
      b: { label: 'raw script first byte', summary: b },
      target: '—',
      met: null,
    },
  ];
}

/** Waits for the PTY to end, then removes it (pty_kill of an ended PTY asks nothing and only removes it). */
async function endAndRemove(harness: PluginHarness, id: string): Promise<void> {
  for (;;) {
    const list = await harness.call<{ ptys: Array<{ id: string; status: string }> }>('pty_list', {}, OWNER);
    if (list.ptys.find((p) => p.id === id)?.status !== 'running') break;
    await sleep(5);
  }
  await harness.kill(OWNER, id);
}

/** A first-byte row for information: the target it would have, from its own B side's median. */
function firstByteRow(name: string, a: Row['a'], b: NonNullable<Row['b']>, ratio: ReturnType<typeof pairedRatio>): Row {
  return {
    suite: 'spawn',
    name,
    unit: 'ms',
    a,
    b,
    ...ratio,
    target: `— (1.5×B + 3 ms = ${spawnLimit(b.summary.median).toFixed(1)})`,
    met: null,
  };
}
