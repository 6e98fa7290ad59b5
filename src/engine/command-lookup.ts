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
  const problem = command.includes('/') ? pathProblem(command, workdir) : nameProblem(command, path);
  if (problem === undefined) return;
  const hint = commandLineHint(command, workdir, path) ?? homeHint(command);
  throw new PtyError('spawn_failed', `pty_spawn: ${problem}${hint} Nothing was started.`);
}

/** Why a command given as a path cannot run, or undefined when it can. */
function pathProblem(command: string, workdir: string): string | undefined {
  const file = isAbsolute(command) ? command : join(workdir, command);
  const problem = notExecutable(file);
  if (problem === undefined) return undefined;
  return `${JSON.stringify(command)} cannot run: ${problem}${isAbsolute(command) ? '' : ` (looked for in ${workdir})`}.`;
}

/** Why a command given as a name cannot run (found in no PATH directory), or undefined when it can. */
function nameProblem(command: string, path: string): string | undefined {
  if (onPath(command, path)) return undefined;
  if (command === '.' || command === '..') {
    return `${JSON.stringify(command)} names a directory, not a program: give the program to run, by name ("python3") or by its path ("./run.sh").`;
  }
  const inNone = `command not found: ${JSON.stringify(command)} is in none of the PTY's PATH directories (${path}).`;
  if (/\s/.test(command)) return inNone;
  return `${inNone} Give its path (./${command}, or an absolute one), or run it through a shell that sets up its PATH (command: "bash", args: ["-lc", ...]).`;
}

const onPath = (name: string, path: string): boolean =>
  path.split(':').some((dir) => dir !== '' && notExecutable(join(dir, name)) === undefined);

/**
 * A command that holds whitespace is a command line written into `command` ("echo hi"): when its first word is a
 * program that runs, say that the arguments go in `args`, or that a shell line is run by bash -c.
 */
function commandLineHint(command: string, workdir: string, path: string): string | undefined {
  if (!/\s/.test(command)) return undefined;
  const [program = '', ...args] = command.trim().split(/\s+/);
  const runs = program.includes('/') ? pathProblem(program, workdir) === undefined : onPath(program, path);
  if (program === '' || !runs) {
    return ' command holds whitespace: it names the program alone, and its arguments go in args, one string each.';
  }
  const quoted = args.map((arg) => JSON.stringify(arg)).join(', ');
  const split = `command ${JSON.stringify(program)}${args.length > 0 ? `, args [${quoted}]` : ''}`;
  return ` command names the program alone, without arguments (it is not a shell line): give ${split}, each argument its own string; or, to run it as a shell line (pipes, &&, quoting), command "bash", args ["-c", ${JSON.stringify(command.trim())}].`;
}

/** `~` is the shell's: given to us it is a file or directory of that name. */
const homeHint = (command: string): string =>
  command.startsWith('~') ? ' A leading ~ is not expanded (no shell reads the command): give the absolute path.' : '';

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
