import { shellCommandLine } from './shell-quote.js';
import { BASH_PATH, SCRIPT_PATH, SETPRIV_PATH, STTY_PATH } from './system-paths.js';

export interface ScriptInvocation {
  readonly file: string;
  readonly args: readonly string[];
}

/**
 * Descriptors the host inherited without close-on-exec would pass through setpriv, script and the shell into
 * the command. bash (unlike dash) can close any fd number, so it closes everything above 2, then execs on.
 * The glob's own directory descriptor is already closed when the loop runs; errors are for fds gone since.
 */
const CLOSE_INHERITED_FDS =
  'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null; exec "$@"';

/**
 * The `-c` string `script` gives to `/bin/sh`: size the terminal (it starts at 0×0 when our stdin is a pipe),
 * turn off onlcr (line-heavy output is ~20× faster without the \n→\r\n rewrite; the renderer resolves any
 * \r a program writes itself), then `exec` the command so it becomes the PTY's session leader.
 */
export function wrapperCommand(command: string, args: readonly string[], rows: number, cols: number): string {
  return `${STTY_PATH} rows ${rows} cols ${cols} -onlcr; exec ${shellCommandLine(command, args)}`;
}

/**
 * bash (closes fds) → setpriv --pdeathsig KILL (dies with the host) → script -q -e -E never (quiet, real exit
 * status, no input echo) -c WRAPPER /dev/null (no typescript file). One pid all the way: each execs the next.
 */
export function scriptInvocation(command: string, args: readonly string[], rows: number, cols: number): ScriptInvocation {
  return {
    file: BASH_PATH,
    args: [
      // Node's stdio pipes are socketpairs: bash takes a socket on stdin for an ssh login and would read
      // ~/.bashrc (the host user's startup file, with its env) unless told not to.
      '--norc',
      '--noprofile',
      '-c',
      CLOSE_INHERITED_FDS,
      'local-pty',
      SETPRIV_PATH,
      '--pdeathsig',
      'KILL',
      '--',
      SCRIPT_PATH,
      '--quiet',
      '--return',
      '--echo',
      'never',
      '--command',
      wrapperCommand(command, args, rows, cols),
      '/dev/null',
    ],
  };
}
