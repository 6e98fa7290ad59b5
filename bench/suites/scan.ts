import { RE2JS } from 're2js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { compileLinearPattern, joinedThenLines, type LinearPattern } from '../../src/patterns/linear-pattern.js';
import { markOf, OutputScanner } from '../../src/patterns/output-scanner.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { pairedInfoRow, type Row } from '../lib/report.js';
import { LOG, LONG, output, SHORT } from '../lib/shapes.js';
import { fullGc, log, MiB, rotation } from '../lib/util.js';

/** What `script` hands over at once in a flood (the ingest suite's chunks average 4–15 KiB). */
const CHUNK_BYTES = 4_096;

/**
 * Patterns an agent waits on, none of which the flood prints: the ingest suite's (re2js finds its literal prefix
 * itself), alternations and a caseless word (which re2js scans with its automaton, character by character), and
 * one whose literal re2js's own prefilter finds.
 */
const PATTERNS: ReadonlyArray<{ source: string; ignoreCase: boolean }> = [
  { source: 'never-printed-[0-9]{3}', ignoreCase: false },
  { source: 'error|fail', ignoreCase: false },
  { source: 'error', ignoreCase: true },
  { source: '(ready|listening)', ignoreCase: false },
  { source: String.raw`\d+ passed`, ignoreCase: false },
];

/** The same pattern as the plugin compiled it before literals were looked for first: re2js alone on every block. */
function engineOnly(source: string, ignoreCase: boolean): LinearPattern {
  const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  const line = RE2JS.compile(source, flags);
  const multiline = RE2JS.compile(source, flags | RE2JS.MULTILINE);
  const test = (text: string): boolean => line.test(text);
  return {
    source,
    ignoreCase,
    test,
    matchingLines: (text) => joinedThenLines(text, multiline, test, undefined),
    mayMatchAscii: () => true,
    rulesOutAscii: false,
    asciiLiteralOverlap: 0,
  };
}

/** Milliseconds spent in a pending wait's scans while `chunks` arrive, one scan per chunk as the plugin runs them. */
function scanTime(pattern: LinearPattern, chunks: readonly string[]): number {
  const target = new OutputBuffer();
  const scanner = new OutputScanner(target, pattern, markOf(target));
  let spent = 0;
  for (const chunk of chunks) {
    target.append(chunk);
    const t0 = performance.now();
    const match = scanner.scan();
    spent += performance.now() - t0;
    if (match !== undefined) throw new Error(`${pattern.source} matched line ${match.line}: ${match.text}`);
  }
  return spent;
}

/**
 * A pending wait's scan alone, host time per MiB of output, for the patterns above: the plugin's (required
 * literals looked for first with V8's string search) side by side with re2js alone over the same chunks.
 * Alternating A/B; the buffer's appends are not timed.
 */
export async function scan(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 2, 5);
  const bytes = pick(cfg, 2, 8) * MiB;
  const rows: Row[] = [];
  for (const shape of [LONG, LOG, SHORT]) {
    const data = output(shape, bytes);
    const chunks: string[] = [];
    for (let at = 0; at < data.length; at += CHUNK_BYTES) chunks.push(data.toString('latin1', at, at + CHUNK_BYTES));
    for (const { source, ignoreCase } of PATTERNS) {
      const sides = {
        plugin: compileLinearPattern('bench', source, ignoreCase),
        engine: engineOnly(source, ignoreCase),
      };
      const samples: Record<keyof typeof sides, number[]> = { plugin: [], engine: [] };
      for (let rep = 0; rep < reps; rep++) {
        for (const side of rotation<keyof typeof sides>(['plugin', 'engine'], rep)) {
          fullGc();
          samples[side].push(scanTime(sides[side], chunks) / (bytes / MiB));
        }
      }
      const row = pairedInfoRow(
        'scan',
        `${ignoreCase ? '(caseless) ' : ''}${source}, ${shape.title}`,
        'ms/MiB',
        { label: 'wait scan (plugin)', samples: samples.plugin },
        { label: 're2js alone', samples: samples.engine },
      );
      log(
        `  scan ${row.name}: plugin ${row.a.summary.median.toFixed(3)} ms/MiB, re2js alone ${row.b?.summary.median.toFixed(3)}`,
      );
      rows.push(row);
    }
  }
  return rows;
}
