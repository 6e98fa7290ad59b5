import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER } from 'rxjs';
import { silentLogger } from '../../src/core/host-port.js';
import { LocalPty } from '../../src/core/local-pty.js';
import { PTY_TOOLS, runTool } from '../../src/tools/definitions.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { replayedPty, replayOnly } from '../lib/replayed-pty.js';
import { pairedInfoRow, type Row } from '../lib/report.js';
import { LOG, LONG, output, SHORT, type Shape } from '../lib/shapes.js';
import { fullGc, log, MiB, rotation } from '../lib/util.js';

/**
 * Read sizes in a cycle, about what the plugin's stream read in the ingest suite (7.6–7.9 KB on average for
 * 80-byte lines; `script` writes up to 4,095 bytes at a time, and a busy reader finds several writes waiting).
 */
const READ_SIZES = [4_095, 8_190, 4_095, 12_285] as const;
/** The ingest suite reads the screen every 100 ms of a 30–40 MiB/s flood: one read per 3.5 MiB here. */
const SCREEN_READ_EVERY_BYTES = 3.5 * MiB;
/** PTYs run first and not counted: V8 settles the output path's code over the first few (docs/perf-journal.md). */
const WARMUP_PTYS = 3;
const WAIT_TIMEOUT_MS = 300_000;
const OWNER = 'ses_pipeline';

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

function cut(data: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < data.length; i++) {
    const size = READ_SIZES[i % READ_SIZES.length] as number;
    chunks.push(data.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/**
 * The core's own cost per MiB of a flood, with no process: the real core and tools, fed by a replayed event stream
 * (replayed-pty.ts) in reads of the ingest suite's size, with the ingest suite's pending pattern wait and a screen
 * read per 3.5 MiB. Side by side with the replay alone (the same chunks decoded, one per turn), so their
 * difference is what the plugin adds past the decode. No pipe, kernel or other process is in either side: this
 * figure moves only with our own code, where the ingest suite's also moves with the machine (issue 14).
 */
export async function pipeline(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 2, 5);
  const bytes = pick(cfg, 4, 32) * MiB;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-bench-pipeline-')));
  const rows: Row[] = [];
  try {
    for (const shape of [LONG, LOG, SHORT]) rows.push(await measureShape(shape, bytes, reps, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function measureShape(shape: Shape, bytes: number, reps: number, dir: string): Promise<Row> {
  const chunks = cut(output(shape, bytes));
  const readEvery = Math.max(1, Math.round(SCREEN_READ_EVERY_BYTES / (bytes / chunks.length)));
  let onRead: (() => void) | undefined;
  const core = new LocalPty({
    projectDir: dir,
    host: { notify: async () => undefined, sessionDeleted$: NEVER, log: silentLogger },
    spawn: replayedPty(chunks, (index) => {
      if ((index + 1) % readEvery === 0) onRead?.();
    }),
  });
  const ctx = { owner: OWNER, ask: async () => undefined };
  const call = async (name: string, args: unknown): Promise<Record<string, unknown>> => {
    const tool = PTY_TOOLS.find((t) => t.name === name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return (await runTool(tool, core, ctx, args)).value as Record<string, unknown>;
  };

  /** One PTY through the core: spawned, the wait pending, read by screen, ended by the replay's exit, removed. */
  const coreRun = async (): Promise<number> => {
    // A command that exists, as pty_spawn looks it up before it starts anything; the replay stands in for its process.
    const { id } = (await call('pty_spawn', { command: 'true', args: [], description: 'pipeline bench' })) as {
      id: string;
    };
    const wait = call('pty_read', {
      id,
      limit: 1,
      wait: { pattern: 'never-printed-[0-9]{3}', timeoutMs: WAIT_TIMEOUT_MS },
    });
    let reading: Promise<unknown> = Promise.resolve();
    let screenReads = 0;
    onRead = () => {
      reading = reading.then(() => call('pty_read', { id, screen: true })).then(() => screenReads++);
    };
    const { reason } = (await wait) as { reason?: string };
    onRead = undefined;
    await reading;
    if (reason !== 'exit') throw new Error(`the pending wait ended by ${reason}, not by the exit`);
    await call('pty_kill', { id, cleanup: true });
    return screenReads;
  };

  for (let i = 0; i < WARMUP_PTYS; i++) await coreRun();
  const samples: Record<'core' | 'replay', number[]> = { core: [], replay: [] };
  const screenReads: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const side of rotation<'core' | 'replay'>(['core', 'replay'], rep)) {
      fullGc();
      const c0 = process.cpuUsage();
      if (side === 'core') screenReads.push(await coreRun());
      else if ((await replayOnly(chunks)) !== bytes) throw new Error('the replay decoded the wrong length');
      samples[side].push(cpuMs(process.cpuUsage(c0)) / (bytes / MiB));
    }
  }
  await core.close();
  const row = pairedInfoRow(
    'pipeline',
    `${shape.title}, reads of ~${Math.round(bytes / chunks.length / 100) / 10} KB, wait pending, screen read per ${SCREEN_READ_EVERY_BYTES / MiB} MiB (${Math.min(...screenReads)}–${Math.max(...screenReads)})`,
    'CPU ms/MiB',
    { label: 'core, replayed PTY', samples: samples.core },
    { label: 'replay alone (decode)', samples: samples.replay },
  );
  log(
    `  pipeline ${shape.key}: core ${row.a.summary.median.toFixed(2)} ms/MiB, replay alone ${row.b?.summary.median.toFixed(2)}`,
  );
  return row;
}
