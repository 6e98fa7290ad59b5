import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, release } from 'node:os';
export { sleep } from '../../src/testkit/waits.js';

export const MiB = 1_048_576;

/** Full GC twice (the second collects what the first's finalizers freed); a no-op without --expose-gc. */
export function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export function hasGc(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === 'function';
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
  readonly node: string;
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
    node: process.version,
    script: run('/usr/bin/script', ['--version']),
    grep: run('/usr/bin/grep', ['--version']).split('\n')[0] ?? '',
    kernel: release(),
  };
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}
