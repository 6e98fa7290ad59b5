import { spawn } from 'node:child_process';

/**
 * Whether this runtime holds back a child's pipe while its stdout is paused: a child writes 32 MiB, its stdout is
 * paused after the first chunk, and after `waitMs` the child has exited only if the runtime read the rest anyway
 * (a pipe holds 64 KiB; a held-back writer blocks). Resolves after the child is gone.
 */
export function pauseHoldsBackPipe(waitMs = 1_000): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/head', ['-c', String(32 * 1_048_576), '/dev/zero'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let exited = false;
    let closed = false;
    let measured: boolean | undefined;
    const settle = () => {
      if (closed && measured !== undefined) resolve(measured);
    };
    child.once('exit', () => {
      exited = true;
    });
    // Bun may report `close` while the paused stdout still holds output.
    child.once('close', () => {
      closed = true;
      settle();
    });
    child.once('error', reject);
    child.stdout.once('data', () => {
      child.stdout.pause();
      setTimeout(() => {
        measured = !exited;
        child.kill('SIGKILL');
        child.stdout.resume();
        settle();
      }, waitMs);
    });
  });
}
