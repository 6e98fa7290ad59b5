import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { filledPty, FULL_BUFFER_LINES } from '../lib/fill.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { LinesRead } from '../../src/protocol/tool-results.js';
import type { Row } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { log } from '../lib/util.js';

const OWNER = 'bench-read';
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));
const PAGE = 500;
const P99_LIMIT_MS = 1;
/** "Independent of offset and size": a case's median within this factor of the full buffer's first page. */
const SAME_FACTOR = 1.25;

/**
 * Metric 4: pty_read of a 500-line page (through the tool: zod, core, view, JSON) at the start, middle and end
 * of a full buffer (8,620 lines of 100 chars, 17,240 printed), its tail, and the same for a small buffer.
 * Timed from `execute` to the returned envelope string. The cases are interleaved call by call, so drift and GC
 * hit them alike.
 */
export async function read(cfg: BenchConfig): Promise<Row[]> {
  const iterations = pick(cfg, 100, 2_000);
  const harness = await PluginHarness.open();
  try {
    const full = await filledPty(harness, OWNER, 2 * FULL_BUFFER_LINES);
    const small = await filledPty(harness, OWNER, 1_000);
    const cases = [
      { name: 'full buffer, first page', args: { id: full.id, offset: 0, limit: PAGE } },
      {
        name: 'full buffer, middle page',
        args: { id: full.id, offset: Math.floor(full.retained / 2) - PAGE / 2, limit: PAGE },
      },
      { name: 'full buffer, last page', args: { id: full.id, offset: full.retained - PAGE, limit: PAGE } },
      { name: 'full buffer, tail', args: { id: full.id, tail: true, limit: PAGE } },
      { name: '1,000-line buffer, first page', args: { id: small.id, offset: 0, limit: PAGE } },
      { name: '1,000-line buffer, tail', args: { id: small.id, tail: true, limit: PAGE } },
    ];
    const times: number[][] = cases.map(() => []);
    const warmup = pick(cfg, 20, 200);
    for (let i = -warmup; i < iterations; i++) {
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(i + k + cases.length * warmup) % cases.length]!;
        const { value: result, ms } = await harness.timedCall<LinesRead>('pty_read', c.args, OWNER);
        if (result.returned !== PAGE) throw new Error(`${c.name}: returned ${result.returned}`);
        if (i >= 0) times[cases.indexOf(c)]!.push(ms);
        // Each tool call is its own turn of the host's event loop, not one long run of microtasks.
        await yieldToIo();
      }
    }
    const reference = summarize(times[0]!);
    return cases.map((c, k) => {
      const s = summarize(times[k]!);
      const ratio = s.median / reference.median;
      log(`  read ${c.name}: median ${s.median.toFixed(3)} ms, p99 ${s.p99.toFixed(3)} ms, max ${s.max.toFixed(2)} ms`);
      return {
        suite: 'read',
        name: `${c.name} (${PAGE} lines)`,
        unit: 'ms',
        a: { label: 'median', summary: s },
        b: { label: 'same samples', summary: s, stat: 'p99' },
        ratio,
        ratioLabel: 'median/full-first',
        target: `p99 ≤ ${P99_LIMIT_MS} ms, median ≤ ${SAME_FACTOR}× first`,
        met: s.p99 <= P99_LIMIT_MS && ratio <= SAME_FACTOR,
        extra: { args: c.args, p25: s.p25, p75: s.p75 },
      } satisfies Row;
    });
  } finally {
    await harness.dispose();
  }
}
