import { COMMAND_LOCALE, fixedEnvironment } from './environment.js';
import { BASH_PATH, SCRIPT_PATH, SETPRIV_PATH, STTY_PATH, WRAPPER_SHELL_PATH } from './system-paths.js';
import { RUNS_IN_BUN } from './runtime.js';

export interface ScriptInvocation {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /**
   * With `argvVia: 'channel'`, the program's argv, each word NUL-terminated: written by the host to the chain's fd 3
   * (ARGV_FD) and read by the wrapper, so no word is ever quoted into one argv string (the kernel caps a single
   * one at 131,072 bytes). Undefined with `'environment'`: the words are in `env` (ARGV_ENV_COUNT, ARGV_ENV_PREFIX).
   */
  readonly argv: Buffer | undefined;
}

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

/** The chain's own locale, the plain one: nothing in it decodes text (see scriptInvocation). */
const CHAIN_LOCALE = 'C';

/** The descriptor the argv travels on: stdio index 3 of the spawn. */
export const ARGV_FD = 3;

/**
 * bash (unlike dash) can close any fd number: this closes every descriptor above `keep`. The glob's own directory
 * descriptor is already closed when the loop runs (closing a closed fd is no error in bash), and a name that is
 * not a number (the glob's own text, should /proc be missing) is skipped. No `2>/dev/null` around the loop: bash
 * would save stderr on a descriptor above 9 for the loop's duration, the loop would close that copy, and stderr
 * would stay /dev/null after it (seen: script's stderr and the program's were lost that way).
 */
function closeDescriptorsAbove(keep: number): string {
  return `for f in /proc/$$/fd/*; do n=\${f##*/}; [[ $n == *[!0-9]* ]] || (( n <= ${keep} )) || exec {n}>&-; done`;
}

/**
 * Descriptors the host inherited without close-on-exec would pass through setpriv, script and the shell into
 * the command: this first link of the chain closes everything above the argv channel, then execs on.
 * Used only when the host holds such a descriptor (inheritable-fds.ts): it costs one exec, ≈1.5–2 ms of a spawn.
 */
const closeInheritedFds = (keep: number): string => `${closeDescriptorsAbove(keep)}; exec "$@"`;

/**
 * The wrapper's own belt: every descriptor above 2 is closed before the program runs, whether or not the chain
 * began with closeInheritedFds (the host's descriptors are checked before the spawn, and a native addon may
 * open one in between). The wrapper runs anyway: this costs no process, ≈0.05 ms.
 */
const CLOSE_ABOVE_STDIO = closeDescriptorsAbove(2);

/**
 * The `-c` string `script` gives to its shell (bash, through SHELL): read the argv from fd 3 until the host closes
 * its end, write back its own pid (the terminal's session id), close fd 3 and anything else above 2 (the program
 * sees only 0, 1, 2), size the terminal (it starts at 0×0 when our stdin is a pipe), turn off onlcr (line-heavy
 * output is ~20× faster without the \n→\r\n rewrite; the renderer resolves any \r a program writes itself), then
 * `exec` the program, with the fixed environment's SHELL again, so that it becomes the PTY's session leader.
 * Nothing the model sent is ever parsed by a shell.
 *
 * `stty` is the one process of its own here (≈1–1.5 ms): the size and the mode must be set before the program
 * starts (it reads them once), bash has no builtin that sets them, `script` 2.38 sizes its terminal only from a
 * terminal on its stdin and changes no mode but echo, and a background `stty` overlapped nothing (measured).
 *
 * The chain itself runs in the C locale (see scriptInvocation); the program gets COMMAND_LOCALE back at its exec.
 */
export function wrapperCommand(rows: number, cols: number, argvVia: ArgvVia = 'channel'): string {
  return [
    ...(argvVia === 'channel' ? readArgvFromChannel() : readArgvFromEnvironment()),
    CLOSE_ABOVE_STDIO,
    `(( \${#argv[@]} > 0 )) || exit 127`,
    `${STTY_PATH} rows ${rows} cols ${cols} -onlcr`,
    `LANG=${COMMAND_LOCALE} SHELL=${WRAPPER_SHELL_PATH} exec -- "\${argv[@]}"`,
  ].join('; ');
}

/** Each word from its variable (`${!name}`: the bytes as they are, no splitting or globbing), then unset. */
function readArgvFromEnvironment(): string[] {
  return [
    'argv=()',
    `for (( i = 0; i < ${ARGV_ENV_COUNT}; i++ )); do w=${ARGV_ENV_PREFIX}$i; argv+=("\${!w}"); unset "$w"; done`,
    `unset ${ARGV_ENV_COUNT} i w`,
  ];
}

function readArgvFromChannel(): string[] {
  return [
    `mapfile -t -d '' -u ${ARGV_FD} argv`,
    // The shell is the session leader already (script's child called setsid and exec'd it), and the program will
    // keep its pid: telling it now makes the terminal session known before the program runs, however briefly.
    // Best effort, with SIGPIPE ignored: Bun (OpenCode 1.18) hands the chain a one-way pipe whose other end is
    // closed once the argv is written, and a SIGPIPE here would end the shell with 141 (seen end to end). The
    // host then finds the leader by /proc, as it does whenever no pid comes back. No subshell (a fork, ≈0.3 ms):
    // `trap - PIPE` gives back the disposition the shell started with, which the exec'd program inherits (an
    // ignored SIGPIPE would survive exec: `yes | head -1` would end with a write error, 1, instead of SIGPIPE).
    `trap '' PIPE`,
    `{ printf '%d\\n' "$$" >&${ARGV_FD}; } 2>/dev/null`,
    `trap - PIPE`,
    `exec ${ARGV_FD}>&-`,
  ];
}

/** The argv as written to fd 3: every word NUL-terminated (a word never holds NUL; command-bounds checks that). */
export function argvPayload(command: string, args: readonly string[]): Buffer {
  return Buffer.from([command, ...args].map((word) => `${word}\0`).join(''), 'utf8');
}

export interface ChainOptions {
  /**
   * Start the chain with the bash step that closes descriptors above fd 3 (above 2 without the channel), so that
   * not even setpriv and script hold them. Needed only when the host holds an inheritable descriptor
   * (inheritable-fds.ts).
   */
  readonly closeInheritedFds: boolean;
  /** Default: DEFAULT_ARGV_VIA, the channel except under Bun. */
  readonly argvVia?: ArgvVia;
}

/**
 * [bash (closes fds) →] setpriv --pdeathsig KILL (dies with the host) → script -q -e -E never (quiet, real exit
 * status, no input echo) -c WRAPPER /dev/null (no typescript file). One pid all the way: each execs the next.
 * The chain's own argv is the same small size whatever the program's arguments are.
 */
export function scriptInvocation(
  command: string,
  args: readonly string[],
  rows: number,
  cols: number,
  options: ChainOptions,
): ScriptInvocation {
  const argvVia = options.argvVia ?? DEFAULT_ARGV_VIA;
  const chain = [
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
    wrapperCommand(rows, cols, argvVia),
    '/dev/null',
  ];
  const [file, ...rest] = options.closeInheritedFds
    ? [
        BASH_PATH,
        // Node's stdio pipes are socketpairs: bash takes a socket on stdin for an ssh login and would read
        // ~/.bashrc (the host user's startup file, with its env) unless told not to.
        '--norc',
        '--noprofile',
        '-c',
        closeInheritedFds(argvVia === 'channel' ? ARGV_FD : 2),
        'local-pty',
        ...chain,
      ]
    : chain;
  return {
    file: file!,
    args: rest,
    // `script` runs `$SHELL -c WRAPPER`: bash for mapfile; the wrapper gives the program the fixed SHELL back.
    // LANG=C: setpriv, script, bash and stty skip loading the UTF-8 locale (≈0.45 ms in all, measured); none of
    // them decodes text (mapfile splits bytes at NUL), and the wrapper gives the program COMMAND_LOCALE back.
    env: {
      ...fixedEnvironment(),
      LANG: CHAIN_LOCALE,
      SHELL: BASH_PATH,
      ...(argvVia === 'environment' ? argvEnvironment(command, args) : {}),
    },
    argv: argvVia === 'channel' ? argvPayload(command, args) : undefined,
  };
}

/** The argv as variables for the wrapper (command-bounds keeps each word within the kernel's 131,072 bytes). */
function argvEnvironment(command: string, args: readonly string[]): Record<string, string> {
  const words = [command, ...args];
  return Object.fromEntries([
    [ARGV_ENV_COUNT, String(words.length)],
    ...words.map((word, i) => [`${ARGV_ENV_PREFIX}${i}`, word]),
  ]);
}
