import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { type LoopDelay, loopDelay } from '../lib/loop-delay.js';
import { floodPlan, FLOOD_PTYS, pluginFlood, rawFlood, removeAll } from '../lib/flood.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { Row } from '../lib/report.js';
import { mib } from '../lib/shapes.js';
import { summarize } from '../lib/stats.js';
import { fullGc, log, MiB, rotation, sleep } from '../lib/util.js';

/** The period of the monitor's timer chain (loop-delay.ts). */
const RESOLUTION_MS = 1;
const P99_LIMIT_MS = 20;
/** A delay is recorded only between two of the monitor's ticks: let it tick before anything starts. */
const WARMUP_MS = 50;

type Side = 'plugin' | 'raw' | 'reader';
type Phase = 'whole' | 'steady';

const ms = (h: LoopDelay, q: 'p99' | 'max') => (q === 'max' ? h.max : h.percentile(99));

/**
 * Metric 8: event-loop delay (loop-delay.ts, p99 and max) while 16 PTYs flood the plugin at once (the
 * three output shapes in turn), vs while the same 16 commands flood raw `script` to /dev/null: the machine
 * equally loaded, the host ingesting nothing. Information: the same floods read by the host, which only counts
 * bytes (the bare reader: what the runtime itself costs to read them). `whole` includes the 16 spawns
 * (child_process.spawn blocks the loop for each fork+exec); `steady` starts once every PTY runs.
 */
export async function lag(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 1, 3);
  const plan = floodPlan(pick(cfg, 64, 256) * MiB, 'mixed');
  const harness = await PluginHarness.open();
  const samples: Record<Side, Record<Phase, { p99: number[]; max: number[] }>> = {
    plugin: { whole: { p99: [], max: [] }, steady: { p99: [], max: [] } },
    raw: { whole: { p99: [], max: [] }, steady: { p99: [], max: [] } },
    reader: { whole: { p99: [], max: [] }, steady: { p99: [], max: [] } },
  };
  const seconds: Record<Side, number[]> = { plugin: [], raw: [], reader: [] };
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const side of rotation<Side>(['plugin', 'raw', 'reader'], rep)) {
        fullGc();
        const whole = loopDelay(RESOLUTION_MS);
        const steady = loopDelay(RESOLUTION_MS);
        whole.enable();
        await sleep(WARMUP_MS);
        const onStarted = () => steady.enable();
        const flood =
          side === 'plugin'
            ? await pluginFlood(harness, plan, onStarted)
            : await rawFlood(plan, onStarted, side === 'raw' ? 'devnull' : 'count');
        whole.disable();
        steady.disable();
        if (flood.problems.length > 0) throw new Error(`lag flood: ${flood.problems.join('; ')}`);
        for (const [phase, h] of [
          ['whole', whole],
          ['steady', steady],
        ] as const) {
          samples[side][phase].p99.push(ms(h, 'p99'));
          samples[side][phase].max.push(ms(h, 'max'));
        }
        seconds[side].push(flood.seconds);
        await removeAll(harness, flood.ids);
      }
    }
  } finally {
    await harness.dispose();
  }
  const title = `${FLOOD_PTYS} PTYs flooding (${mib(plan.totalBytes)}, mixed shapes)`;
  const rows: Row[] = [];
  for (const phase of ['whole', 'steady'] as const) {
    const a = summarize(samples.plugin[phase].p99);
    const b = summarize(samples.raw[phase].p99);
    const reader = summarize(samples.reader[phase].p99);
    log(
      `  lag ${phase}: p99 ${a.median.toFixed(1)} ms (max ${summarize(samples.plugin[phase].max).max.toFixed(0)}) flooding the plugin, ${reader.median.toFixed(1)} ms read by the bare reader, ${b.median.toFixed(1)} ms with raw script to /dev/null`,
    );
    const what = phase === 'whole' ? 'spawns included' : 'once all run';
    rows.push({
      suite: 'lag',
      name: `${title}, ${what}: event-loop delay p99`,
      unit: 'ms',
      a: { label: 'plugin ingesting', summary: a },
      b: { label: 'raw script→/dev/null', summary: b },
      target: `≤ ${P99_LIMIT_MS} ms`,
      met: a.median <= P99_LIMIT_MS,
      ...(phase === 'whole' ? { extra: { seconds } } : {}),
    });
    rows.push({
      suite: 'lag',
      name: `${title}, ${what}: event-loop delay p99, the bare reader`,
      unit: 'ms',
      a: { label: 'bare reader counts bytes', summary: reader },
      b: { label: 'raw script→/dev/null', summary: b },
      target: '—',
      met: null,
    });
    rows.push({
      suite: 'lag',
      name: `${title}, ${what}: event-loop delay max`,
      unit: 'ms',
      a: { label: 'plugin ingesting', summary: summarize(samples.plugin[phase].max) },
      b: { label: 'raw script→/dev/null', summary: summarize(samples.raw[phase].max) },
      target: '—',
      met: null,
    });
  }
  return rows;
}
