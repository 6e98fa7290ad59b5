/**
 * `npm run bench [-- --quick] [-- --only NAME[,NAME…]]`: local-pty against the limits of its design, each pair
 * measured in one run with the sides alternating. Prints a table and writes bench-results/latest.json.
 * Benchmarks, not tests: a missed target is reported, never an exit status (only a crash exits non-zero).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchConfig } from './lib/config.js';
import { markdown, table, type Row } from './lib/report.js';
import { describeFaults, probePageFaults } from './lib/page-faults.js';
import { hasGc, log, machine, RUNTIME } from './lib/util.js';
import { buffer } from './suites/buffer.js';
import { exitLag } from './suites/exit-lag.js';
import { ingest } from './suites/ingest.js';
import { kill } from './suites/kill.js';
import { lag } from './suites/lag.js';
import { loop } from './suites/loop.js';
import { memory } from './suites/memory.js';
import { pipeline } from './suites/pipeline.js';
import { read } from './suites/read.js';
import { scan } from './suites/scan.js';
import { search } from './suites/search.js';
import { spawnLatency } from './suites/spawn.js';

const SUITES: ReadonlyArray<{ name: string; aliases?: string[]; run: (cfg: BenchConfig) => Promise<Row[]> }> = [
  { name: 'ingest', aliases: ['cpu'], run: ingest },
  { name: 'buffer', run: buffer },
  { name: 'pipeline', run: pipeline },
  { name: 'scan', run: scan },
  { name: 'memory', run: memory },
  { name: 'read', run: read },
  { name: 'search', run: search },
  { name: 'spawn', run: spawnLatency },
  { name: 'kill', run: kill },
  { name: 'lag', run: lag },
  { name: 'exits', run: exitLag },
  { name: 'loop', run: loop },
];

function parseArgs(argv: readonly string[]): { quick: boolean; only: Set<string> | null } {
  let quick = false;
  const only = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--quick') quick = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value) throw new Error('--only needs a suite name');
      for (const name of value.split(',')) only.add(name.trim());
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        `usage: npm run bench [-- --quick] [-- --only ${SUITES.map((s) => s.name).join('|')}[,…]]\n`,
      );
      process.exit(0);
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  for (const name of only) {
    if (!SUITES.some((s) => s.name === name || s.aliases?.includes(name))) {
      throw new Error(`unknown suite ${name}; choose from ${SUITES.map((s) => s.name).join(', ')}`);
    }
  }
  return { quick, only: only.size > 0 ? only : null };
}

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const cfg: BenchConfig = { quick };
  log(`runtime: ${RUNTIME}`);
  if (!hasGc())
    log('warning: run with node --expose-gc (npm run bench does): memory numbers are less stable without forced GC');
  const selected = SUITES.filter((s) => only === null || only.has(s.name) || s.aliases?.some((a) => only.has(a)));
  const rows: Row[] = [];
  const durations: Record<string, number> = {};
  const started = Date.now();
  const loadBefore = loadavg();
  const faultsBefore = await probePageFaults();
  log(describeFaults(faultsBefore));
  for (const suite of selected) {
    log(`▶ ${suite.name}${quick ? ' (quick)' : ''}`);
    const t0 = performance.now();
    rows.push(...(await suite.run(cfg)));
    durations[suite.name] = Math.round(performance.now() - t0);
    log(`  ${suite.name} took ${(durations[suite.name]! / 1000).toFixed(1)} s`);
  }
  const result = {
    date: new Date(started).toISOString(),
    quick,
    only: only === null ? null : [...only],
    totalSeconds: Math.round((Date.now() - started) / 100) / 10,
    durationsMs: durations,
    machine: machine(),
    // Other work on the machine skews every number: the 1-minute load average at the start and at the end.
    loadAverage: { before: loadBefore[0], after: loadavg()[0] },
    // And what a page fault costs, fresh and after a spawn, at the start and at the end (lib/page-faults.ts).
    pageFaults: { before: faultsBefore, after: await probePageFaults() },
    rows,
  };
  const dir = 'bench-results';
  // A run in Bun keeps its own files, so it never overwrites the Node run's that docs/PERFORMANCE.md quotes.
  const stem = RUNTIME.startsWith('bun') ? 'latest-bun' : 'latest';
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, `${stem}.md`), `${markdown(rows)}\n`);
  process.stdout.write(`\n${table(rows)}\n\n`);
  for (const row of rows) if (row.note) process.stdout.write(`note: ${row.suite} / ${row.name}: ${row.note}\n`);
  process.stdout.write(
    `total ${result.totalSeconds} s, load average ${loadBefore[0]?.toFixed(2)} → ${result.loadAverage.after?.toFixed(2)}; wrote ${join(dir, `${stem}.json`)} (and ${stem}.md)\n`,
  );
  process.stdout.write(`at the end: ${describeFaults(result.pageFaults.after)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
