import { MAX_BUFFER_CHARS } from '../../src/limits.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { floodPlan, FLOOD_PTYS, pluginFlood, removeAll, type FloodOutcome } from '../lib/flood.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { Row } from '../lib/report.js';
import { LOG, LONG, mib, SHORT, type Shape } from '../lib/shapes.js';
import { single } from '../lib/stats.js';
import { fullGc, log, MiB, sleep } from '../lib/util.js';

/** One buffer's bound in bytes: MAX_BUFFER_CHARS characters, one byte each for ASCII text in V8. */
const BUFFER_BOUND_BYTES = MAX_BUFFER_CHARS;
const GROWTH_LIMIT = 3 * FLOOD_PTYS * BUFFER_BOUND_BYTES;
const SAMPLE_EVERY_MS = 20;
const WARM_UP_BYTES = 64 * MiB;
/** The mixed flood again, with every PTY's screen emulator in use (the issue 13 screen view). */
const WITH_SCREENS = 'mixed with screens';
const SCREEN_READ_EVERY_MS = 200;

interface Snapshot {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}

/**
 * How long a snapshot first waits after a collection, then how often RSS is looked at, how close two looks must be
 * to call it settled, and for how long at most.
 */
const SETTLE_FIRST_MS = 5_000;
const SETTLE_EVERY_MS = 1_000;
const SETTLED_WITHIN_BYTES = 1 * MiB;
const SETTLE_AT_MOST_MS = 10_000;

/**
 * The process's memory once a collection has run and RSS has stopped moving: SETTLE_FIRST_MS, then two looks
 * SETTLE_EVERY_MS apart within SETTLED_WITHIN_BYTES (at most SETTLE_AT_MOST_MS in all). Bun's allocator gives freed
 * pages back to the system on its own schedule: 100 ms after 16 PTYs were removed RSS had not moved, 500 ms after it
 * was 55–65 MiB lower and stayed there. Node's fell 6–20 MiB more between 2 and 5 s after (V8 giving back the pages
 * of what it freed), then stayed (twenty-second session). A look too early made "before", "full" and "after cleanup"
 * each land on either side of those drops. Every snapshot waits the same way, in both runtimes.
 */
async function settled(): Promise<Snapshot> {
  fullGc();
  await sleep(SETTLE_FIRST_MS);
  fullGc();
  let last = process.memoryUsage().rss;
  for (let waited = SETTLE_FIRST_MS; waited < SETTLE_AT_MOST_MS; waited += SETTLE_EVERY_MS) {
    await sleep(SETTLE_EVERY_MS);
    fullGc();
    const now = process.memoryUsage().rss;
    const still = Math.abs(now - last) <= SETTLED_WITHIN_BYTES;
    last = now;
    if (still) break;
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

const mb = (bytes: number) => bytes / MiB;

/**
 * Metric 3: host RSS before and after 1 GiB flows through 16 PTYs at once (4 owners × 4 PTYs: the per-owner
 * limit is 5, the total 16), sampled for its peak while it flows, and again after every PTY is removed.
 */
export async function memory(cfg: BenchConfig): Promise<Row[]> {
  const total = pick(cfg, 128, 1024) * MiB;
  const shapes: ReadonlyArray<Shape | 'mixed' | typeof WITH_SCREENS> = [LONG, LOG, SHORT, 'mixed', WITH_SCREENS];
  const rows: Row[] = [];
  const harness = await PluginHarness.open();
  try {
    // The first flood in a process also pays for one-time growth (compiled code, malloc arenas, libuv's pools)
    // that is never given back; measured alone (`--only memory`), the first shape showed ~38 MiB of it, left
    // after cleanup. A small untimed flood of every shape first keeps that out of the figures, and a screen read of
    // each of its PTYs does the same for the emulator's (Bun: ~60 MiB left after the first flood with emulators, ~5
    // after later ones).
    const warmUp = await pluginFlood(harness, floodPlan(WARM_UP_BYTES, 'mixed'));
    await Promise.all(warmUp.ids.map(({ owner, id }) => harness.read(owner, { id, screen: true })));
    await removeAll(harness, warmUp.ids);
    // Each round starts where the last one's cleanup left the process: one settled snapshot serves as both.
    let settledBefore: Snapshot | undefined;
    for (const shape of shapes) {
      const screens = shape === WITH_SCREENS;
      const plan = floodPlan(total, screens ? 'mixed' : shape);
      const title = `${shape === 'mixed' || screens ? 'mixed shapes' : shape.title}${screens ? `, ${FLOOD_PTYS} PTYs with emulators (every screen read while it flows)` : ''}, ${mib(plan.totalBytes)} via ${FLOOD_PTYS} PTYs`;
      const before = settledBefore ?? (await settled());
      let peakRss = before.rss;
      let peakHeap = before.heapUsed;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, SAMPLE_EVERY_MS);
      let screenReads: Promise<unknown> = Promise.resolve();
      /** PTYs whose screen came back: each then has its emulator, whose memory this case is about. */
      const emulated = new Set<string>();
      const readScreens = (ids: FloodOutcome['ids']) =>
        Promise.all(
          ids.map(async ({ owner, id }) => {
            const read = (await harness.read(owner, { id, screen: true })) as { screen?: unknown };
            if (read.screen !== undefined) emulated.add(id);
          }),
        );
      let reader: NodeJS.Timeout | undefined;
      // A round in flight when the flood ends must not schedule another (it would read PTYs removed by then).
      let flowing = true;
      const flood = await pluginFlood(harness, plan, (ids) => {
        if (!screens) return;
        // Every PTY's emulator made and kept busy: one screen read of each, again and again while the flood runs.
        const again = () => {
          screenReads = readScreens(ids).then(() => {
            if (flowing) reader = setTimeout(again, SCREEN_READ_EVERY_MS);
          });
        };
        again();
      });
      flowing = false;
      clearTimeout(reader);
      await screenReads;
      if (screens) await readScreens(flood.ids);
      clearInterval(sampler);
      const full = await settled();
      await removeAll(harness, flood.ids);
      const after = await settled();
      settledBefore = after;
      const grown = full.rss - before.rss;
      const left = after.rss - before.rss;
      log(
        `  memory ${title}: ${(mb(plan.totalBytes) / flood.seconds).toFixed(0)} MiB/s; RSS +${mb(grown).toFixed(1)} MiB full (peak +${mb(peakRss - before.rss).toFixed(1)}), +${mb(left).toFixed(1)} after cleanup; heap +${mb(full.heapUsed - before.heapUsed).toFixed(1)} / +${mb(after.heapUsed - before.heapUsed).toFixed(1)}`,
      );
      const problems = [...flood.problems];
      if (screens && emulated.size < FLOOD_PTYS) problems.push(`only ${emulated.size} of ${FLOOD_PTYS} screens read`);
      const note = problems.length > 0 ? `INVALID RUNS: ${problems.join('; ')}` : undefined;
      const extra = {
        before,
        full,
        after,
        peakRss,
        peakHeap,
        seconds: flood.seconds,
        throughputMiBs: mb(plan.totalBytes) / flood.seconds,
        heapGrowthMiB: mb(full.heapUsed - before.heapUsed),
        heapAfterCleanupMiB: mb(after.heapUsed - before.heapUsed),
        ...(screens ? { emulators: emulated.size } : {}),
      };
      rows.push({
        suite: 'memory',
        name: `${title}: RSS growth, buffers full`,
        unit: 'MiB',
        a: { label: 'RSS growth', summary: single(mb(grown)) },
        b: { label: 'peak growth while flowing', summary: single(mb(peakRss - before.rss)) },
        target: `≤ ${mb(GROWTH_LIMIT).toFixed(1)} (3×16×bound)`,
        met: grown <= GROWTH_LIMIT,
        ...(note ? { note } : {}),
        extra,
      });
      rows.push({
        suite: 'memory',
        name: `${title}: after cleanup`,
        unit: 'MiB',
        a: { label: 'RSS growth left', summary: single(mb(left)) },
        b: { label: 'heap growth left', summary: single(mb(after.heapUsed - before.heapUsed)) },
        target: '≤ 16×bound left, heap ≤ +2 MiB',
        met: left <= FLOOD_PTYS * BUFFER_BOUND_BYTES && after.heapUsed - before.heapUsed <= 2 * MiB,
      });
    }
  } finally {
    await harness.dispose();
  }
  return rows;
}
