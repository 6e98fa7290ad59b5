import { match } from 'ts-pattern';
import { PtyError } from '../errors.js';

/** Every way a start can fail, said with its reason and, for a kernel limit, the limit. */
export function spawnFailed(err: unknown): PtyError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason = match(code)
    .with(
      'E2BIG',
      () =>
        'the kernel refused the argument list as too long (131,072 bytes per argument, about 2 MiB in all, environment included)',
    )
    .with(
      'EMFILE',
      'ENFILE',
      () => 'too many open files (the host process or the system is at its descriptor limit); end some PTYs and retry',
    )
    .with(
      'EAGAIN',
      () =>
        'the system refused a new process (the user process limit, RLIMIT_NPROC, is reached); end some processes and retry',
    )
    .with('ENOMEM', () => 'the system is out of memory for a new process')
    .with(
      'ENOENT',
      'EACCES',
      () => `a system program the PTY needs could not be run (${String((err as Error).message)})`,
    )
    .otherwise(() => String(err instanceof Error ? err.message : err));
  return new PtyError('spawn_failed', `the terminal could not be started: ${reason}.`);
}
