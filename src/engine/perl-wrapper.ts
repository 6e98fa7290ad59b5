import { accessSync, constants } from 'node:fs';
import { COMMAND_LOCALE } from './environment.js';
import { F_GETFL, F_SETFL, GENERIC_ABI_ARCHES, O_NONBLOCK, ONLCR, TCGETS, TCSETS, TIOCSWINSZ } from './linux-abi.js';
import { PERL_PATH, WRAPPER_SHELL_PATH } from './system-paths.js';
import { ARGV_ENV_COUNT, ARGV_ENV_PREFIX, ARGV_FD, type ArgvVia } from './wrapper-argv.js';

/** ENOENT: the one exec failure that means "no such program" (exit 127, as a shell says); any other is 126. */
const ENOENT = 2;

let runs: boolean | undefined;

/**
 * Whether this machine can run the Perl wrapper: perl is there (perl-base on Debian and Ubuntu) and the arch's ioctls
 * are the generic ones (linux-abi.ts); elsewhere the bash wrapper runs.
 */
export function perlWrapperRuns(): boolean {
  if (runs === undefined) {
    try {
      accessSync(PERL_PATH, constants.X_OK);
      runs = GENERIC_ABI_ARCHES.has(process.arch);
    } catch {
      runs = false;
    }
  }
  return runs;
}

/**
 * The wrapper as one Perl process, in place of bash and its `stty` child (bash-wrapper.ts): it does the same steps
 * and sets the terminal's size and mode by `ioctl` itself, which no shell builtin can. One process fewer per spawn:
 * 4 ms less from spawn to first byte on a machine where a fork and exec cost 4 ms (docs/perf-journal.md). Nothing
 * is loaded but the interpreter: `use POSIX` alone takes longer than bash and `stty` together.
 *
 * `script` runs `$SHELL -c COMMAND`. With `SHELL=perl` that is `perl -c -e…`: `-c` compiles the program without
 * running it, but Perl runs BEGIN blocks while it compiles (perlrun), so the whole wrapper is one BEGIN block that
 * ends in `exec` or `exit` and compilation never finishes. Every `exit` in it is nonzero: after `exit 0` in a BEGIN
 * block, `-c` still prints "-e syntax OK" (measured, perl 5.36). Any shell in between would be one more start.
 *
 * With `stdoutTwinFd`, first of all: `script`'s stdout, passed again on that descriptor, is made blocking (see
 * ChainOptions.stdoutTwin in script-invocation.ts); the descriptor itself is closed with the others below.
 *
 * Steps, as the bash wrapper's: the argv (NUL-terminated words on fd 3 until the host closes its end, or the
 * variables, deleted); the pid report on fd 3 with SIGPIPE ignored only around the write (the program gets the
 * disposition the wrapper started with); every descriptor above 2 closed (the belt, see bash-wrapper.ts); no word
 * → 127; onlcr off and the size set on the terminal (stdin); LANG, SHELL and PWD as a shell would leave them; then
 * `exec` the argv (PATH searched as by `execvp`), so the program leads the PTY's session. A failed exec says why on
 * the terminal and exits 127 (not found) or 126, as bash does.
 */
export function perlWrapper(rows: number, cols: number, argvVia: ArgvVia, stdoutTwinFd?: number): string {
  const program = [
    ...(stdoutTwinFd === undefined ? [] : unblockDescriptor(stdoutTwinFd)),
    'my @argv;',
    ...(argvVia === 'channel' ? READ_ARGV_FROM_CHANNEL : READ_ARGV_FROM_ENVIRONMENT),
    'if (opendir(my $fds, "/proc/self/fd")) {',
    // `tr` counts the non-digits without the regex engine, whose first use costs Perl 7–8 page faults (≈0.15 ms).
    '  my @open = grep { !tr/0-9//c && $_ > 2 } readdir $fds;',
    '  closedir $fds;',
    '  for my $fd (@open) { my $h; close $h if open($h, "<&=", $fd); }',
    '}',
    'exit 127 unless @argv;',
    'my $termios = "\\0" x 64;',
    `if (ioctl(STDIN, ${TCGETS}, $termios)) {`,
    '  my @flags = unpack("L4", $termios);',
    `  $flags[1] &= ~${ONLCR};`,
    '  substr($termios, 0, 16) = pack("L4", @flags);',
    `  ioctl(STDIN, ${TCSETS}, $termios);`,
    '}',
    // struct winsize: rows, cols, then the pixel sizes, unsigned shorts.
    `my $size = pack("S4", ${rows}, ${cols}, 0, 0);`,
    `ioctl(STDIN, ${TIOCSWINSZ}, $size);`,
    `$ENV{LANG} = "${COMMAND_LOCALE}";`,
    `$ENV{SHELL} = "${WRAPPER_SHELL_PATH}";`,
    'my $cwd = readlink("/proc/self/cwd");',
    '$ENV{PWD} = $cwd if defined $cwd && -d $cwd;',
    'exec { $argv[0] } @argv;',
    `my $missing = $! == ${ENOENT};`,
    'print STDERR "local-pty: $argv[0]: ", ($missing && index($argv[0], "/") < 0 ? "command not found" : "$!"), "\\n";',
    'exit($missing ? 127 : 126);',
  ];
  return `-eBEGIN { ${program.join(' ')} }`;
}

/**
 * Clears O_NONBLOCK on `fd`'s open file description, which is `script`'s stdout's too: `script` then blocks on a full
 * socket as on a full pipe. `>&=` wraps the descriptor without a dup; failing, it leaves things as they were.
 */
export const unblockDescriptor = (fd: number): string[] => [
  `if (open(my $twin, ">&=", ${fd})) {`,
  `  my $flags = fcntl($twin, ${F_GETFL}, 0);`,
  `  fcntl($twin, ${F_SETFL}, $flags & ~${O_NONBLOCK}) if defined $flags;`,
  '}',
];

const READ_ARGV_FROM_CHANNEL = [
  'my $pipe = $SIG{PIPE};',
  `open(my $channel, "+<&=", ${ARGV_FD}) or exit 127;`,
  'my $words = do { local $/; <$channel> };',
  '$SIG{PIPE} = "IGNORE";',
  'syswrite($channel, "$$\\n");',
  '$SIG{PIPE} = defined $pipe ? $pipe : "DEFAULT";',
  'close $channel;',
  '@argv = split /\\0/, $words, -1;',
  // Every word ends in NUL: the last field is the empty rest after it.
  'pop @argv;',
];

const READ_ARGV_FROM_ENVIRONMENT = [
  `my $count = delete $ENV{${ARGV_ENV_COUNT}} || 0;`,
  `push @argv, delete $ENV{"${ARGV_ENV_PREFIX}$_"} for 0 .. $count - 1;`,
];
