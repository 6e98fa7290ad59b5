import { fixedEnvironment } from './environment.js';
import { BASH_PATH, SCRIPT_PATH, SETPRIV_PATH, STTY_PATH, WRAPPER_SHELL_PATH } from './system-paths.js';

export interface ScriptInvocation {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /**
   * The program's argv, each word NUL-terminated: written by the host to the chain's fd 3 (ARGV_FD) and read by
   * the wrapper, so no word is ever quoted into one argv string (the kernel caps a single one at 131,072 bytes).
   */
  readonly argv: Buffer;
}

/** The descriptor the argv travels on: stdio index 3 of the spawn. */
export const ARGV_FD = 3;

/**
 * Descriptors the host inherited without close-on-exec would pass through setpriv, script and the shell into
 * the command. bash (unlike dash) can close any fd number, so it closes everything above the argv channel, then
 * execs on. The glob's own directory descriptor is already closed when the loop runs; errors are for fds gone since.
 */
const CLOSE_INHERITED_FDS = `for f in /proc/$$/fd/*; do n=\${f##*/}; if [ "$n" -gt ${ARGV_FD} ]; then eval "exec $n>&-"; fi; done 2>/dev/null; exec "$@"`;

/**
 * The `-c` string `script` gives to its shell (bash, through SHELL): read the argv from fd 3 until the host closes
 * its end, write back its own pid (the terminal's session id), close fd 3 (the program sees only 0, 1, 2), size the terminal (it starts at 0×0 when our stdin is a pipe),
 * turn off onlcr (line-heavy output is ~20× faster without the \n→\r\n rewrite; the renderer resolves any \r a
 * program writes itself), then `exec` the program, with the fixed environment's SHELL again, so that it becomes
 * the PTY's session leader. Nothing the model sent is ever parsed by a shell.
 */
export function wrapperCommand(rows: number, cols: number): string {
  return [
    `mapfile -t -d '' -u ${ARGV_FD} argv`,
    // The shell is the session leader already (script's child called setsid and exec'd it), and the program will
    // keep its pid: telling it now makes the terminal session known before the program runs, however briefly.
    // Best effort, in a subshell that ignores SIGPIPE: Bun (OpenCode 1.18) hands the chain a one-way pipe whose
    // other end is closed once the argv is written, and a SIGPIPE here would end the shell with 141 (seen end to
    // end). The host then finds the leader by /proc, as it does whenever no pid comes back. ($$ is still our pid.)
    `( trap '' PIPE; printf '%d\\n' "$$" >&${ARGV_FD} ) 2>/dev/null`,
    `exec ${ARGV_FD}>&-`,
    `(( \${#argv[@]} > 0 )) || exit 127`,
    `${STTY_PATH} rows ${rows} cols ${cols} -onlcr`,
    `SHELL=${WRAPPER_SHELL_PATH} exec -- "\${argv[@]}"`,
  ].join('; ');
}

/** The argv as written to fd 3: every word NUL-terminated (a word never holds NUL; command-bounds checks that). */
export function argvPayload(command: string, args: readonly string[]): Buffer {
  return Buffer.from([command, ...args].map((word) => `${word}\0`).join(''), 'utf8');
}

/**
 * bash (closes fds) → setpriv --pdeathsig KILL (dies with the host) → script -q -e -E never (quiet, real exit
 * status, no input echo) -c WRAPPER /dev/null (no typescript file). One pid all the way: each execs the next.
 * The chain's own argv is the same small size whatever the program's arguments are.
 */
export function scriptInvocation(
  command: string,
  args: readonly string[],
  rows: number,
  cols: number,
): ScriptInvocation {
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
      wrapperCommand(rows, cols),
      '/dev/null',
    ],
    // `script` runs `$SHELL -c WRAPPER`: bash for mapfile; the wrapper gives the program the fixed SHELL back.
    env: { ...fixedEnvironment(), SHELL: BASH_PATH },
    argv: argvPayload(command, args),
  };
}
