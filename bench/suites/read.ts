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
 * How the harness takes each envelope back: `own` checks its page size in the string (one in PARSED_EVERY parsed
 * whole), `parsed` parses every one (see read).
 */
type ReadPass = 'own' | 'parsed';
/**
 * In the `own` pass, one envelope in this many is parsed and checked whole; the others are checked for their page
 * size in the string itself, so that the harness makes no garbage of its own.
 */
const PARSED_EVERY = 100;

/**
 * Metric 4: pty_read of a 500-line page (through the tool: zod, core, view, JSON) at the start, middle and end
 * of a full buffer (8,620 lines of 100 chars, 17,240 printed), its tail, and the same for a small buffer.
 * Timed from `execute` to the returned envelope string. The cases are interleaved call by call, so drift and GC
 * hit them alike.
 *
 * Twice: first with the harness reading each envelope's page size from the string (the target's rows: the
 * collections a read meets are then the plugin's own), then parsing every envelope as the bench did through the
 * thirty-fourth session (informational: in Bun that parse is as much garbage again as the read, and decides
 * whether more than 1% of reads meet an eden collection, docs/perf-journal.md). In passes of their own, as a
 * collection falls on whichever read's allocation crosses the line.
 */
export async function read(cfg: BenchConfig): Promise<Row[]> {
  const iterations = pick(cfg, 100, 2_000);
  const harness = await PluginHarness.open();
  try {
    const full = await filledPty(harness, OWNER, 2 * FULL_BUFFER_LINES);
    const small = await filledPty(harness, OWNER, 1_000);
    const cases: ReadCase[] = [
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
    const warmup = pick(cfg, 20, 200);
    const own = await timeReads(harness, cases, 'own', warmup, iterations);
    const parsed = await timeReads(harness, cases, 'parsed', warmup, iterations);
    const reference = summarize(own[0] as number[]);
    const rows = cases.map((c, k): Row => {
      const s = summarize(own[k] as number[]);
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
      };
    });
    const parsedRows = cases.map((c, k): Row => {
      const s = summarize(parsed[k] as number[]);
      return {
        suite: 'read',
        name: `${c.name} (${PAGE} lines), every envelope parsed by the harness`,
        unit: 'ms',
        a: { label: 'median', summary: s },
        b: { label: 'same samples', summary: s, stat: 'p99' },
        target: '—',
        met: null,
      };
    });
    return [...rows, ...parsedRows];
  } finally {
    await harness.dispose();
  }
}

interface ReadCase {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** Each case's read times, ms: `warmup` untimed rounds, then `iterations` timed ones, the cases in rotating order. */
async function timeReads(
  harness: PluginHarness,
  cases: readonly ReadCase[],
  pass: ReadPass,
  warmup: number,
  iterations: number,
): Promise<number[][]> {
  const times: number[][] = cases.map(() => []);
  // The page's size, as the envelope spells it (LinesRead: `returned` comes right before `lines`).
  const returnedPage = `"returned":${PAGE},"lines":[`;
  for (let i = -warmup; i < iterations; i++) {
    for (let k = 0; k < cases.length; k++) {
      const index = (i + k + cases.length * warmup) % cases.length;
      const c = cases[index] as ReadCase;
      const { text, ms } = await harness.timedText('pty_read', c.args, OWNER);
      if (pass === 'parsed' || i % PARSED_EVERY === 0) {
        const result = JSON.parse(text) as LinesRead;
        if (result.returned !== PAGE || result.lines.length !== PAGE)
          throw new Error(`${c.name}: returned ${result.returned}, ${result.lines.length} lines`);
      } else if (!text.includes(returnedPage)) {
        throw new Error(`${c.name}: the envelope does not hold ${returnedPage}`);
      }
      if (i >= 0) times[index]?.push(ms);
      // Each tool call is its own turn of the host's event loop, not one long run of microtasks.
      await yieldToIo();
    }
  }
  return times;
}
