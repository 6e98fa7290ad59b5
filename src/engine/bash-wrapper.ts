import { COMMAND_LOCALE } from './environment.js';
import { STTY_PATH, WRAPPER_SHELL_PATH } from './system-paths.js';
import { ARGV_ENV_COUNT, ARGV_ENV_PREFIX, ARGV_FD, type ArgvVia } from './wrapper-argv.js';

/**
 * bash (unlike dash) can close any fd number: this closes every descriptor above `keep`. The glob's own directory
 * descriptor is already closed when the loop runs (closing a closed fd is no error in bash), and a name that is
 * not a number (the glob's own text, should /proc be missing) is skipped. No `2>/dev/null` around the loop: bash
 * would save stderr on a descriptor above 9 for the loop's duration, the loop would close that copy, and stderr
 * would stay /dev/null after it (seen: script's stderr and the program's were lost that way).
 */
export function closeDescriptorsAbove(keep: number): string {
  return `for f in /proc/$$/fd/*; do n=\${f##*/}; [[ $n == *[!0-9]* ]] || (( n <= ${keep} )) || exec {n}>&-; done`;
}

/**
 * The wrapper's own belt: every descriptor above 2 is closed before the program runs, whether or not the chain
 * began with the closing bash (the host's descriptors are checked before the spawn, and a native addon may
 * open one in between). The wrapper runs anyway: this costs no process, ≈0.05 ms.
 */
const CLOSE_ABOVE_STDIO = closeDescriptorsAbove(2);

/**
 * The wrapper where the Perl one cannot run (perl-wrapper.ts): the `-c` string `script` gives to bash. Read the
 * argv from fd 3 until the host closes its end, write back its own pid (the terminal's session id), close fd 3 and
 * anything else above 2 (the program sees only 0, 1, 2), size the terminal (it starts at 0×0 when our stdin is a
 * pipe), turn off onlcr (line-heavy output is ~20× faster without the \n→\r\n rewrite; the renderer resolves any
 * \r a program writes itself), then `exec` the program, with the fixed environment's SHELL again, so that it
 * becomes the PTY's session leader. Nothing the model sent is ever parsed by a shell.
 *
 * `stty` is a process of its own here (1–1.5 ms on a quiet machine, 4–6 on a slow one): the size and the mode
 * must be set before the program starts (it reads them once), bash has no builtin that sets them, `script` 2.38
 * sizes its terminal only from a terminal on its stdin and changes no mode but echo, and a background `stty`
 * overlapped nothing (measured).
 */
export function bashWrapper(rows: number, cols: number, argvVia: ArgvVia): string {
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
