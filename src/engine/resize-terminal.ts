import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { PtyError } from '../errors.js';
import { STTY_RESIZE_TIMEOUT_MS } from '../limits.js';
import { readStat } from './procfs.js';
import { STTY_PATH } from './system-paths.js';

/** Linux's Unix98 PTY slaves have majors 136–143 (UNIX98_PTY_SLAVE_MAJOR, 8 majors of 256 minors each). */
const PTS_FIRST_MAJOR = 136;
const PTS_MAJORS = 8;
const MINORS_PER_MAJOR = 256;

/** /dev/pts/N for a tty_nr, or undefined when it is no PTY slave (proc(5): minor in bits 0–7 and 20–31, major in 8–19). */
export function ptsPathOf(ttyNr: number): string | undefined {
  const major = (ttyNr >>> 8) & 0xfff;
  const minor = (ttyNr & 0xff) | ((ttyNr >>> 12) & 0xfff00);
  if (major < PTS_FIRST_MAJOR || major >= PTS_FIRST_MAJOR + PTS_MAJORS) return undefined;
  return `/dev/pts/${(major - PTS_FIRST_MAJOR) * MINORS_PER_MAJOR + minor}`;
}

/**
 * The PTY device of the program that leads the terminal session `leaderPid`, checked to be that terminal: the
 * program still leads its session and the device's number is its controlling terminal's (a device whose number
 * was reused since would differ, or the leader would be gone).
 */
export function leaderTerminal(leaderPid: number): string {
  const stat = readStat(leaderPid);
  const gone = new PtyError(
    'not_running',
    'the program that holds this terminal has ended; the terminal can no longer be resized.',
  );
  if (stat === undefined || stat.state === 'Z' || stat.sessionId !== leaderPid) throw gone;
  const path = ptsPathOf(stat.ttyNr);
  if (path === undefined) throw gone;
  let rdev: number;
  try {
    rdev = statSync(path).rdev;
  } catch {
    throw gone;
  }
  if (rdev !== stat.ttyNr) throw gone;
  return path;
}

/**
 * Sets the terminal's rows and columns from outside with `stty -F` (TIOCSWINSZ on the slave, which the user who
 * started `script` owns): the kernel sends SIGWINCH to the terminal's foreground process group. No native addon.
 */
export function resizeTerminal(leaderPid: number, rows: number, cols: number): Promise<void> {
  const device = leaderTerminal(leaderPid);
  return new Promise((resolve, reject) => {
    execFile(
      STTY_PATH,
      ['-F', device, 'rows', String(rows), 'cols', String(cols)],
      { timeout: STTY_RESIZE_TIMEOUT_MS, env: { LC_ALL: 'C' } },
      (err, _stdout, stderr) => {
        if (err)
          reject(
            new PtyError('write_failed', `resizing the terminal ${device} failed: ${stderr.trim() || err.message}`),
          );
        else resolve();
      },
    );
  });
}
