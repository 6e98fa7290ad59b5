import { RUNS_IN_BUN } from './runtime.js';

/**
 * How the program's argv reaches the wrapper. `channel`: a fourth stdio pipe (fd 3), which also carries the
 * wrapper's pid report back. `environment`: one variable per word, which the wrapper unsets before the exec, so
 * the program never sees them; no pid report, the host finds the leader by /proc.
 */
export type ArgvVia = 'channel' | 'environment';

/**
 * Bun 1.3 (OpenCode 1.18's runtime) mishandles a fourth stdio pipe: with 16 children at a time, 15% of them never
 * reported their end, some lost the end of their output, and some emitted EBADF (epoll_ctl) instead of exiting
 * (docs/HOSTS.md). Three pipes are sound there, so under Bun the argv travels in the environment.
 */
export const DEFAULT_ARGV_VIA: ArgvVia = RUNS_IN_BUN ? 'environment' : 'channel';

/** The variables of `argvVia: 'environment'`: the word count, and each word under the prefix and its index. */
export const ARGV_ENV_COUNT = 'LOCAL_PTY_ARGC';
export const ARGV_ENV_PREFIX = 'LOCAL_PTY_ARG_';

/** The descriptor the argv travels on: stdio index 3 of the spawn. */
export const ARGV_FD = 3;

/** The argv as written to fd 3: every word NUL-terminated (a word never holds NUL; command-bounds checks that). */
export function argvPayload(command: string, args: readonly string[]): Buffer {
  return Buffer.from([command, ...args].map((word) => `${word}\0`).join(''), 'utf8');
}

/** The argv as variables for the wrapper (command-bounds keeps each word within the kernel's 131,072 bytes). */
export function argvEnvironment(command: string, args: readonly string[]): Record<string, string> {
  const words = [command, ...args];
  return Object.fromEntries([
    [ARGV_ENV_COUNT, String(words.length)],
    ...words.map((word, i) => [`${ARGV_ENV_PREFIX}${i}`, word]),
  ]);
}
