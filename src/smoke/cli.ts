/**
 * `npm run smoke`: the adversarial smoke run of the whole plugin against real processes, through the OpenCode
 * adapter with an in-process fake host. See `--help`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BACKENDS } from './backends.js';
import { runSmoke, type RunResult, type SmokeReport } from './runner.js';
import { SCENARIOS, scenarioNamed } from './scenarios/index.js';
import type { Scenario } from './scenario.js';

const DEFAULT_RUNS = 10;
const DEFAULT_REPORT = 'smoke-report.json';

const USAGE = `usage: npm run smoke -- [--runs N] [--only NAME[,NAME…]] [--report FILE] [--backend NAME] [--list]

  --runs N        run every scenario N times (default ${DEFAULT_RUNS})
  --only NAMES    run only these scenarios (comma-separated; see --list)
  --report FILE   write the JSON report here (default ${DEFAULT_REPORT})
  --backend NAME  ${Object.values(BACKENDS)
    .map((b) => `${b.name}: ${b.summary}`)
    .join('\n                  ')}
                  (a broken backend is expected to FAIL: it shows the smoke run can catch that breakage)
  --list          list the scenarios and exit

Exit status: 0 when every run passed, 1 when any failed, 2 on a usage error.`;

class UsageError extends Error {}

interface CliOptions {
  readonly runs: number;
  readonly scenarios: readonly Scenario[];
  readonly report: string;
  readonly backend: string;
}

function parse(argv: readonly string[]): CliOptions | 'help' | 'list' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: 'string' },
      only: { type: 'string', multiple: true },
      report: { type: 'string' },
      backend: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (values.list) return 'list';
  const runs = values.runs === undefined ? DEFAULT_RUNS : Number(values.runs);
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new UsageError(`--runs must be a whole number of at least 1, got ${values.runs}`);
  const names = (values.only ?? [])
    .flatMap((o) => o.split(','))
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  const scenarios = names.length === 0 ? SCENARIOS : names.map((n) => scenarioNamed(n) ?? unknownScenario(n));
  const backend = values.backend ?? 'real';
  if (BACKENDS[backend] === undefined)
    throw new UsageError(`unknown backend ${backend}; known: ${Object.keys(BACKENDS).join(', ')}`);
  return { runs, scenarios, report: values.report ?? DEFAULT_REPORT, backend };
}

function unknownScenario(name: string): never {
  throw new UsageError(`unknown scenario ${name}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
}

const seconds = (ms: number) => `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)}s`;

function progressLine(result: RunResult, runs: number, width: number): string {
  const head = `[${result.run}/${runs}] ${result.scenario.padEnd(width)} ${result.ok ? '✓' : '✗'} ${seconds(result.ms)}`;
  if (result.ok) return head;
  return `${head}\n${(result.error ?? '')
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}`;
}

function table(report: SmokeReport): string {
  const rows = [
    ['scenario', 'passes', 'median', 'max'],
    ...report.scenarios.map((s) => [s.scenario, `${s.passes}/${s.runs}`, seconds(s.medianMs), seconds(s.maxMs)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options === 'list') {
    const width = Math.max(...SCENARIOS.map((s) => s.name.length));
    for (const s of SCENARIOS) process.stdout.write(`${s.name.padEnd(width)}  ${s.summary}\n`);
    return 0;
  }
  const backend = BACKENDS[options.backend]!;
  const width = Math.max(...options.scenarios.map((s) => s.name.length));
  process.stdout.write(
    `local-pty smoke: ${options.scenarios.length} scenarios × ${options.runs} runs against the ${backend.name} backend (${backend.summary}), node ${process.version}\n`,
  );
  const report = await runSmoke({
    scenarios: options.scenarios,
    runs: options.runs,
    backend,
    onResult: (result, runs) => process.stdout.write(`${progressLine(result, runs, width)}\n`),
  });
  const reportPath = resolve(options.report);
  writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  const failed = report.results.filter((r) => !r.ok).length;
  process.stdout.write(`\n${table(report)}\n\n`);
  process.stdout.write(
    `${report.ok ? 'PASS' : 'FAIL'}: ${report.results.length - failed}/${report.results.length} runs passed in ${seconds(report.totalMs)}; report: ${reportPath}\n`,
  );
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`smoke run crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
