import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_READ_LIMIT, MAX_READ_LIMIT } from '../../src/limits.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { filledPty, FULL_BUFFER_LINES } from '../lib/fill.js';
import { PluginHarness } from '../lib/plugin-harness.js';
import type { MatchesRead } from '../../src/protocol/tool-results.js';
import { pairedRatio, type Row } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { log, rotation } from '../lib/util.js';

const OWNER = 'bench-search';

/** grep as the plugin runs it (src/search/grep-run.ts): same flags, same locale, the text in a file instead of stdin. */
function grepFile(pattern: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/grep', ['-a', '-m', String(DEFAULT_READ_LIMIT), '-nE', '--', pattern, file], {
      env: { LC_ALL: 'C.UTF-8', PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`grep exited ${code}`));
      // Parsed like the plugin parses it: one match per line.
      else resolve(out === '' ? 0 : out.slice(0, -1).split('\n').length);
    });
  });
}

/**
 * Metric 5: pty_read with a pattern over a full buffer (8,620 lines) vs `grep -nE` on the same text saved to a
 * file, alternating call by call. The text is taken from the plugin itself, page by page.
 */
export async function search(cfg: BenchConfig): Promise<Row[]> {
  const iterations = pick(cfg, 10, 60);
  const harness = await PluginHarness.open();
  const dir = mkdtempSync(join(tmpdir(), 'local-pty-bench-grep-'));
  try {
    const full = await filledPty(harness, OWNER, 2 * FULL_BUFFER_LINES);
    const lines: string[] = [];
    for (let offset = 0; offset < full.retained; offset += MAX_READ_LIMIT) {
      const page = await harness.read(OWNER, { id: full.id, offset, limit: MAX_READ_LIMIT });
      lines.push(...page.lines.map((l) => l.text));
    }
    const file = join(dir, 'buffer.txt');
    writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    const patterns = [
      { name: 'one match (literal)', pattern: `line ${String(2 * FULL_BUFFER_LINES - 1234).padStart(7, '0')}:` },
      { name: 'no match (scans all)', pattern: 'no such text|x{3}y' },
      { name: `${DEFAULT_READ_LIMIT}+ matches (regex, stops at limit)`, pattern: '^line 00[0-9]+[05]: lorem' },
    ];
    const rows: Row[] = [];
    for (const { name, pattern } of patterns) {
      const plugin: number[] = [];
      const grep: number[] = [];
      const counts = new Set<string>();
      for (let i = -2; i < iterations; i++) {
        for (const side of rotation(['plugin', 'grep'] as const, i + 2)) {
          if (side === 'plugin') {
            const { value: r, ms } = await harness.timedCall<MatchesRead>('pty_read', { id: full.id, pattern }, OWNER);
            counts.add(`plugin ${r.matches}`);
            if (i >= 0) plugin.push(ms);
          } else {
            const t0 = performance.now();
            const n = await grepFile(pattern, file);
            const dt = performance.now() - t0;
            counts.add(`grep ${n}`);
            if (i >= 0) grep.push(dt);
          }
        }
      }
      const ratios = summarize(plugin.map((p, k) => p / grep[k]!));
      const a = summarize(plugin);
      const b = summarize(grep);
      log(
        `  search ${name}: plugin ${a.median.toFixed(2)} ms, grep ${b.median.toFixed(2)} ms, ${[...counts].join(', ')}`,
      );
      const countsAgree = new Set([...counts].map((c) => c.split(' ')[1])).size === 1;
      rows.push({
        suite: 'search',
        name: `${name}, ${full.retained} lines`,
        unit: 'ms',
        a: { label: 'pty_read pattern', summary: a },
        b: { label: 'grep -nE file', summary: b },
        ...pairedRatio(ratios),
        target: '≤ 1.5×',
        met: ratios.median <= 1.5,
        ...(countsAgree ? {} : { note: `match counts differ: ${[...counts].join(', ')}` }),
        extra: { pattern, matches: [...counts] },
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await harness.dispose();
  }
}
