import { fixedEnvironment } from './environment.js';
import { bashWrapper, closeDescriptorsAbove } from './bash-wrapper.js';
import { perlWrapper, perlWrapperRuns } from './perl-wrapper.js';
import { BASH_PATH, PERL_PATH, SCRIPT_PATH, SETPRIV_PATH } from './system-paths.js';
import { ARGV_FD, type ArgvVia, argvEnvironment, argvPayload, DEFAULT_ARGV_VIA } from './wrapper-argv.js';

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
  /** With `stdoutTwin`: the descriptor the spawn passes `script`'s stdout on again (its last stdio index). */
  readonly stdoutTwinFd: number | undefined;
}

/** The chain's own locale, the plain one: nothing in it decodes text (see scriptInvocation). */
const CHAIN_LOCALE = 'C';

/**
 * Descriptors the host inherited without close-on-exec would pass through setpriv, script and the shell into
 * the command: this first link of the chain closes everything above the argv channel, then execs on.
 * Used only when the host holds such a descriptor (inheritable-fds.ts): it costs one exec, ≈1.5–2 ms of a spawn.
 */
const closeInheritedFds = (keep: number): string => `${closeDescriptorsAbove(keep)}; exec "$@"`;

/**
 * What `script` runs in the PTY before the program: `perl`, one process (perl-wrapper.ts), where it runs; `bash`
 * and its `stty` child (bash-wrapper.ts) elsewhere. Both take the same steps, and the tests run both.
 */
export type WrapperKind = 'perl' | 'bash';

export const defaultWrapper = (): WrapperKind => (perlWrapperRuns() ? 'perl' : 'bash');

/**
 * The shell `script` runs (its SHELL, for this chain only) and the `-c` string it gives that shell. The wrapper
 * gives the program the fixed environment's SHELL back.
 */
function wrapper(
  kind: WrapperKind,
  rows: number,
  cols: number,
  argvVia: ArgvVia,
  stdoutTwinFd: number | undefined,
): { shell: string; command: string } {
  if (kind === 'perl') return { shell: PERL_PATH, command: perlWrapper(rows, cols, argvVia, stdoutTwinFd) };
  // bash has no fcntl: a chain that needs one has no bash wrapper (outputViaChannel in output-channel.ts).
  if (stdoutTwinFd !== undefined) throw new Error('only the Perl wrapper can make script’s stdout blocking');
  return { shell: BASH_PATH, command: bashWrapper(rows, cols, argvVia) };
}

export interface ChainOptions {
  /**
   * Start the chain with the bash step that closes descriptors above fd 3 (above 2 without the channel; above the
   * stdout twin with one), so that not even setpriv and script hold them. Needed only when the host holds an
   * inheritable descriptor (inheritable-fds.ts).
   */
  readonly closeInheritedFds: boolean;
  /**
   * Start `script` behind `setpriv --pdeathsig KILL`, so that the kernel kills it should the host die. Default
   * true. False only while the orphan guard runs and lists `script`'s session from its spawn (orphan-guard.ts): the
   * guard then does the same, and the spawn saves an exec (≈2 ms).
   */
  readonly dieWithHost?: boolean;
  /** Default: DEFAULT_ARGV_VIA, the channel except under Bun. */
  readonly argvVia?: ArgvVia;
  /** Default: defaultWrapper(), Perl where it runs. */
  readonly wrapper?: WrapperKind;
  /**
   * `script`'s stdout is passed twice, the second time on the descriptor after the chain's others (stdoutTwinFd),
   * for the Perl wrapper to clear O_NONBLOCK through it before the program starts. Bun hands a child the socket it is
   * given as it is, non-blocking, and `script` answers EAGAIN by sleeping 250 ms (util-linux's write_all): an output
   * socket would stall it whenever the host fell behind. O_NONBLOCK belongs to the open file description, which
   * `script`'s fd 1 and this one share, and a socket cannot be opened again. Only the Perl wrapper can: bash has
   * no fcntl.
   */
  readonly stdoutTwin?: boolean;
}

/**
 * [bash (closes fds) →] [setpriv --pdeathsig KILL (dies with the host) →] script -q -e -E never (quiet, real exit
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
  const lastStdioFd = argvVia === 'channel' ? ARGV_FD : 2;
  const stdoutTwinFd = options.stdoutTwin === true ? lastStdioFd + 1 : undefined;
  const { shell, command: wrapperCommand } = wrapper(
    options.wrapper ?? defaultWrapper(),
    rows,
    cols,
    argvVia,
    stdoutTwinFd,
  );
  const chain = [
    ...(options.dieWithHost === false ? [] : [SETPRIV_PATH, '--pdeathsig', 'KILL', '--']),
    SCRIPT_PATH,
    '--quiet',
    '--return',
    '--echo',
    'never',
    '--command',
    wrapperCommand,
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
        closeInheritedFds(stdoutTwinFd ?? lastStdioFd),
        'local-pty',
        ...chain,
      ]
    : chain;
  return {
    file: file!,
    args: rest,
    // LANG=C: setpriv, script and the wrapper skip loading the UTF-8 locale (≈0.45 ms in all, measured); none of
    // them decodes text (the argv is split as bytes at NUL), and the wrapper gives the program COMMAND_LOCALE back.
    env: {
      ...fixedEnvironment(),
      LANG: CHAIN_LOCALE,
      SHELL: shell,
      ...(argvVia === 'environment' ? argvEnvironment(command, args) : {}),
    },
    argv: argvVia === 'channel' ? argvPayload(command, args) : undefined,
    stdoutTwinFd,
  };
}
