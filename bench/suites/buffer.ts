import { StringDecoder } from 'node:string_decoder';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import type { BenchConfig } from '../lib/config.js';
import { pick } from '../lib/config.js';
import { pairedInfoRow, type Row } from '../lib/report.js';
import { COLORED, LOG, LONG, output, SHORT } from '../lib/shapes.js';
import { fullGc, log, MiB, rotation } from '../lib/util.js';

/** What a PTY's stdout delivers at once under a flood (a pipe's capacity), and what it delivered on average in the ingest suite. */
const CHUNK_SIZES = [65_536, 15_001] as const;

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/**
 * The buffer alone, without a process or a stream: host CPU per MiB of `OutputBuffer.append` for each shape,
 * side by side with decoding the same bytes to strings (which every Node host pays, and the plugin's stream
 * does before the buffer sees anything). Tells the buffer's share of the ingest suite's CPU from the rest of
 * the pipeline. Alternating A/B, in chunks as a PTY delivers them.
 */
export async function buffer(cfg: BenchConfig): Promise<Row[]> {
  const reps = pick(cfg, 2, 5);
  const bytes = pick(cfg, 16, 64) * MiB;
  const rows: Row[] = [];
  for (const shape of [LONG, LOG, SHORT, COLORED]) {
    const data = output(shape, bytes);
    for (const chunkSize of CHUNK_SIZES) {
      const samples: Record<'append' | 'decode', number[]> = { append: [], decode: [] };
      for (let rep = 0; rep < reps; rep++) {
        for (const side of rotation<'append' | 'decode'>(['append', 'decode'], rep)) {
          // Decoded beforehand for the append side, so it measures the buffer only.
          const decoder = new StringDecoder('utf8');
          const chunks: string[] = [];
          if (side === 'append')
            for (let at = 0; at < data.length; at += chunkSize)
              chunks.push(decoder.write(data.subarray(at, at + chunkSize)));
          fullGc();
          const c0 = process.cpuUsage();
          if (side === 'append') {
            const target = new OutputBuffer();
            for (const chunk of chunks) target.append(chunk);
          } else {
            let chars = 0;
            for (let at = 0; at < data.length; at += chunkSize)
              chars += decoder.write(data.subarray(at, at + chunkSize)).length;
            if (chars !== data.length) throw new Error(`decoded ${chars} of ${data.length} chars`);
          }
          samples[side].push(cpuMs(process.cpuUsage(c0)) / (bytes / MiB));
        }
      }
      const row = pairedInfoRow(
        'buffer',
        `${shape.title}, ${(chunkSize / 1024).toFixed(0)} KiB chunks`,
        'CPU ms/MiB',
        { label: 'OutputBuffer.append', samples: samples.append },
        { label: 'utf8 decode only', samples: samples.decode },
      );
      log(
        `  buffer ${row.name}: append ${row.a.summary.median.toFixed(2)} ms/MiB, decode ${row.b?.summary.median.toFixed(2)}`,
      );
      rows.push(row);
    }
  }
  return rows;
}
