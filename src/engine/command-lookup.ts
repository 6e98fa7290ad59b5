import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PtyError } from '../errors.js';
import { SAFE_PATH } from './environment.js';

/**
 * Refuses, before anything starts, a command the PTY could not run: a name found in none of
 * the PTY's PATH directories, a path (with a slash, relative to the working directory) that is not an executable
 * file, or a script whose #! line names an interpreter that cannot run. The wrapper would only say so from inside a PTY that had already started, exit 127 or 126, and the spawn
 * itself would have looked like a success to a model that did not wait. (A file that appears or changes between
 * this look and the exec is still reported by the wrapper, as before.)
 */
export function checkCommandRuns(command: string, workdir: string, path: string = SAFE_PATH): void {
  const isPath = command.includes('/');
  // The file it runs from, looked up once: a name along the PATH, a path from the working directory.
  const file = isPath ? fromWorkdir(command, workdir) : foundOnPath(command, path);
  const problem = isPath ? pathProblem(command, workdir) : file === undefined ? nameProblem(command, path) : undefined;
  if (problem !== undefined) {
    const hint = commandLineHint(command, workdir, path) ?? homeHint(command);
    throw new PtyError('spawn_failed', `pty_spawn: ${problem}${hint} Nothing was started.`);
  }
  const script = file === undefined ? undefined : interpreterProblem(file, workdir);
  if (script === undefined) return;
  const where = file === command ? '' : ` (${file})`;
  throw new PtyError(
    'spawn_failed',
    `pty_spawn: ${JSON.stringify(command)}${where} cannot run: ${script} Nothing was started.`,
  );
}

/** A path as the exec reads it: an absolute one as it is, a relative one from the working directory. */
const fromWorkdir = (file: string, workdir: string): string => (isAbsolute(file) ? file : join(workdir, file));

/** Why a command given as a path cannot run, or undefined when it can. */
function pathProblem(command: string, workdir: string): string | undefined {
  const problem = notExecutable(fromWorkdir(command, workdir));
  if (problem === undefined) return undefined;
  return `${JSON.stringify(command)} cannot run: ${problem}${isAbsolute(command) ? '' : ` (looked for in ${workdir})`}.`;
}

/** Why a command given as a name, found in no PATH directory, cannot run. */
function nameProblem(command: string, path: string): string {
  if (command === '.' || command === '..') {
    return `${JSON.stringify(command)} names a directory, not a program: give the program to run, by name ("python3") or by its path ("./run.sh").`;
  }
  const inNone = `command not found: ${JSON.stringify(command)} is in none of the PTY's PATH directories (${path}).`;
  if (/\s/.test(command)) return inNone;
  return `${inNone} Give its path (./${command}, or an absolute one), or run it through a shell that sets up its PATH (command: "bash", args: ["-lc", ...]).`;
}

/** The file a name runs from: the first executable file of that name in the PATH's directories. */
function foundOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(':')) {
    const file = join(dir, name);
    if (dir !== '' && notExecutable(file) === undefined) return file;
  }
  return undefined;
}

const onPath = (name: string, path: string): boolean => foundOnPath(name, path) !== undefined;

/** What the kernel reads of a script's #! line (BINPRM_BUF_SIZE). */
const SHEBANG_READ_BYTES = 256;

/**
 * Why the interpreter a script's #! line names cannot run, or undefined when it can (or the file is no script, or
 * cannot be read). The exec of such a script fails with ENOENT, which the wrapper could only report as
 * "./script: No such file or directory" about a file that is there. The line is read as the kernel reads it: the
 * interpreter runs from after `#!` and any blanks to the next blank or the line's end, a carriage return included
 * (a script with Windows line endings names "/bin/bash\r"); a relative one is taken from the working directory.
 */
function interpreterProblem(file: string, workdir: string): string | undefined {
  const head = readHead(file);
  if (head === undefined || head[0] !== 0x23 || head[1] !== 0x21) return undefined;
  const lineEnd = head.indexOf(0x0a);
  const line = head.subarray(2, lineEnd < 0 ? head.length : lineEnd).toString('utf8');
  const interpreter = /^[ \t]*([^ \t\0]*)/.exec(line)?.[1] ?? '';
  // No interpreter, or one cut by the read's end: not ours to judge (the kernel says ENOEXEC).
  const cut = lineEnd < 0 && head.length === SHEBANG_READ_BYTES && line.trimEnd().endsWith(interpreter);
  if (interpreter === '' || cut) return undefined;
  const problem = notExecutable(fromWorkdir(interpreter, workdir));
  if (problem === undefined) return undefined;
  const fix =
    'Fix the #! line, or run the script through an interpreter that exists (command: "bash" or "python3", args: [the script, ...])';
  if (interpreter.endsWith('\r') && notExecutable(interpreter.slice(0, -1)) === undefined) {
    return `its #! line ends in a carriage return (the file has Windows line endings), so the interpreter it names is ${JSON.stringify(interpreter)}, which does not exist. Convert the file to Unix line endings (dos2unix, or sed -i 's/\\r$//' on it).`;
  }
  return `its #! line names the interpreter ${JSON.stringify(interpreter)}, which cannot run: ${problem}. ${fix}.`;
}

/** The first bytes of a file, or undefined when it cannot be read (an executable need not be readable). */
function readHead(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(SHEBANG_READ_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, SHEBANG_READ_BYTES, 0));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

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
