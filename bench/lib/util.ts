import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, release } from 'node:os';
export { sleep } from '../../src/testkit/waits.js';

export const MiB = 1_048_576;

/** Bun's API where the bench runs in Bun (OpenCode's own runtime: `npm run bench:bun`), else undefined. */
const bun = (globalThis as { Bun?: { version: string; gc(full: boolean): void } }).Bun;

/** The runtime the bench runs in, for the report: `node v20.20.2` or `bun 1.3.14`. */
export const RUNTIME = bun === undefined ? `node ${process.version}` : `bun ${bun.version}`;

/** A synchronous full collection: Node's with --expose-gc, Bun's always; undefined when there is none. */
function collector(): (() => void) | undefined {
  if (bun !== undefined) return () => bun.gc(true);
  return (globalThis as { gc?: () => void }).gc;
}

/** Full GC twice (the second collects what the first's finalizers freed); a no-op without --expose-gc in Node. */
export function fullGc(): void {
  const gc = collector();
  if (gc) {
    gc();
    gc();
  }
}

export function hasGc(): boolean {
  return collector() !== undefined;
}

/** Rotates the order of the sides each repetition so neither always runs first (A B C, B C A, C A B …). */
export function rotation<T>(sides: readonly T[], rep: number): T[] {
  const k = rep % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}

function run(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8' }).trim();
  } catch (err) {
    return `unavailable (${(err as Error).message.split('\n')[0]})`;
  }
}

export interface Machine {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memory: string;
  readonly runtime: string;
  readonly script: string;
  readonly grep: string;
  readonly kernel: string;
}

export function machine(): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    nproc: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
    memory: run('/usr/bin/free', ['-h']),
    runtime: RUNTIME,
    script: run('/usr/bin/script', ['--version']),
    grep: run('/usr/bin/grep', ['--version']).split('\n')[0] ?? '',
    kernel: release(),
  };
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}
