import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PtyError } from '../errors.js';
import { SAFE_PATH } from './environment.js';

/**
 * Refuses, before anything starts, a command the PTY could not run: a name found in none of
 * the PTY's PATH directories, or a path (with a slash, relative to the working directory) that is not an executable
 * file. The wrapper would only say so from inside a PTY that had already started, exit 127 or 126, and the spawn
 * itself would have looked like a success to a model that did not wait. (A file that appears or changes between
 * this look and the exec is still reported by the wrapper, as before.)
 */
export function checkCommandRuns(command: string, workdir: string, path: string = SAFE_PATH): void {
  if (command.includes('/')) {
    const file = isAbsolute(command) ? command : join(workdir, command);
    const problem = notExecutable(file);
    if (problem !== undefined) {
      throw new PtyError(
        'spawn_failed',
        `pty_spawn: ${JSON.stringify(command)} cannot run: ${problem}${isAbsolute(command) ? '' : ` (looked for in ${workdir})`}. Nothing was started.`,
      );
    }
    return;
  }
  for (const dir of path.split(':')) if (dir !== '' && notExecutable(join(dir, command)) === undefined) return;
  throw new PtyError(
    'spawn_failed',
    `pty_spawn: command not found: ${JSON.stringify(command)} is in none of the PTY's PATH directories (${path}). Give its path (./${command}, or an absolute one), or run it through a shell that sets up its PATH (command: "bash", args: ["-lc", ...]). Nothing was started.`,
  );
}

/** Why `file` cannot be executed, or undefined when it can. */
function notExecutable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'it is not a file (a directory?)';
    accessSync(file, constants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
    if (code === 'EACCES') return 'it is not executable (chmod +x, or run it with its interpreter)';
    return `it cannot be read (${code ?? String(err)})`;
  }
}
