import { LINE_OVERHEAD_CHARS, MAX_BUFFER_CHARS } from '../../src/limits.js';
import type { PluginHarness } from './plugin-harness.js';

/** 99 characters + \n: a line costs 100 + LINE_OVERHEAD_CHARS of the buffer's bound (8,620 lines in a full buffer). */
export const FILL_LINE_CHARS = 99;
const FILLER = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore';

/** seq prints `line NNNNNNN: ` + filler, padded to 99 chars. */
export function fillScript(lines: number): string {
  const prefix = 'line %07.0f: ';
  const filler = FILLER.slice(0, FILL_LINE_CHARS - 'line 0000000: '.length);
  return `seq -f '${prefix}${filler}' 1 ${lines}`;
}

export const FULL_BUFFER_LINES = Math.floor(MAX_BUFFER_CHARS / (FILL_LINE_CHARS + 1 + LINE_OVERHEAD_CHARS));

/** A PTY whose buffer holds `lines` printed lines (more than fit: the oldest were dropped), ended. */
export async function filledPty(
  harness: PluginHarness,
  owner: string,
  lines: number,
): Promise<{ id: string; retained: number }> {
  const { id } = await harness.spawnShell(owner, fillScript(lines));
  const exit = await harness.waitExit(id);
  if (exit.exitCode !== 0 || exit.outputLines !== lines)
    throw new Error(`fill failed: exit ${exit.exitCode}, ${exit.outputLines} lines`);
  const probe = await harness.read(owner, { id, limit: 1 });
  return { id, retained: probe.retainedLines };
}
