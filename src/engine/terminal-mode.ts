import { execFile } from 'node:child_process';
import { STTY_PROBE_TIMEOUT_MS } from '../limits.js';
import { STTY_PATH } from './system-paths.js';

/**
 * Whether the terminal is in canonical (line) mode, where the kernel cuts an input line at 4095 bytes.
 * Asked only when a write carries such a long line, since it costs a process. Resolves undefined when the
 * terminal cannot be asked (the program is gone).
 */
export function isCanonicalMode(terminal: string): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    execFile(
      STTY_PATH,
      ['-F', terminal, '-a'],
      { timeout: STTY_PROBE_TIMEOUT_MS, env: { LC_ALL: 'C' } },
      (err, stdout) => {
        if (err) return resolve(undefined);
        const flags = stdout.split(/\s+/);
        resolve(flags.includes('icanon') ? true : flags.includes('-icanon') ? false : undefined);
      },
    );
  });
}

const KILL_LINE = 0x15;
const ERASE = 0x7f;

/**
 * Length of the longest input line (bytes up to a line end the tty driver acts on) given what is pending, with the
 * line editing the driver does itself at its default keys: ^U (kill) empties the line, ^? (erase) takes one byte
 * back (a character of several bytes counts more, erring towards refusing). ^W (word erase) is not counted down:
 * the words are not kept.
 */
export function longestLine(pendingLineBytes: number, bytes: Buffer): { longest: number; pendingAfter: number } {
  let current = pendingLineBytes;
  let longest = 0;
  for (const byte of bytes) {
    // \n ends a line; \r becomes \n (icrnl); ^D (EOF) and ^C (intr, flushes the line) end it too.
    if (byte === 0x0a || byte === 0x0d || byte === 0x04 || byte === 0x03 || byte === KILL_LINE) {
      longest = Math.max(longest, current);
      current = 0;
    } else if (byte === ERASE) {
      longest = Math.max(longest, current);
      current = Math.max(current - 1, 0);
    } else current++;
  }
  return { longest: Math.max(longest, current), pendingAfter: current };
}
