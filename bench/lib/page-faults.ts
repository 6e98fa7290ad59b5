import { spawn } from 'node:child_process';
import { minorFaults } from '../../src/testkit/page-faults.js';

export { minorFaults };

const PROBE_BYTES = 8 * 1_048_576;
const PAGE_BYTES = 4_096;

export interface FaultCost {
  readonly faults: number;
  /** Time per fault in µs; null when the write took no fault to time. */
  readonly usPerFault: number | null;
}

/** What a page fault costs on this machine, and what writing the host's memory after a spawn costs. */
export interface PageFaultProbe {
  /** Writing 8 MiB of memory not touched before: a fault per page, whatever the runtime. */
  readonly fresh: FaultCost;
  /**
   * Writing the same 8 MiB again right after a child process was spawned. A runtime that forks to spawn (Node:
   * libuv's fork on Linux) left every page copy-on-write, so each write faults again; one that spawns without
   * forking (Bun) takes none.
   */
  readonly afterSpawn: FaultCost;
}

function timedFill(buffer: Buffer, value: number): FaultCost {
  const faults0 = minorFaults();
  const t0 = performance.now();
  buffer.fill(value);
  const ms = performance.now() - t0;
  const faults = minorFaults() - faults0;
  // Fewer faults than an eighth of the pages: the write's own time would be most of it, not the faults'.
  return { faults, usPerFault: faults >= PROBE_BYTES / PAGE_BYTES / 8 ? (ms * 1000) / faults : null };
}

/**
 * The machine's page-fault costs, for the report beside the load average. Every number a bench run takes moves with
 * them: on a VM that hands freed memory back to its host, a fault took 17–19 µs where bare metal takes well under 1
 * (docs/perf-journal.md, sixteenth session).
 */
export async function probePageFaults(): Promise<PageFaultProbe> {
  const buffer = Buffer.allocUnsafeSlow(PROBE_BYTES);
  const fresh = timedFill(buffer, 1);
  await new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  const afterSpawn = timedFill(buffer, 2);
  return { fresh, afterSpawn };
}

export function describeFaults(probe: PageFaultProbe): string {
  const cost = (c: FaultCost) =>
    c.usPerFault === null ? `${c.faults} faults` : `${c.usPerFault.toFixed(2)} µs × ${c.faults}`;
  return `page faults writing 8 MiB: fresh ${cost(probe.fresh)}; again after a spawn ${cost(probe.afterSpawn)}`;
}
