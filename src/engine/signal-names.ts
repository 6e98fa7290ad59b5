import { constants } from 'node:os';

const SIGNAL_BY_NUMBER = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

/** Highest signal number `128 + n` is read for (Linux real-time signals end at 64). */
const MAX_SIGNAL_NUMBER = 64;

/**
 * `script -e` reports a command killed by signal n as exit code 128+n. A program may also exit with such
 * a code itself, so the name is only ever reported as inferred.
 */
export function inferSignalFromExitCode(exitCode: number | null): string | null {
  if (exitCode === null || exitCode <= 128 || exitCode > 128 + MAX_SIGNAL_NUMBER) return null;
  const n = exitCode - 128;
  return SIGNAL_BY_NUMBER.get(n) ?? `SIG${n}`;
}
