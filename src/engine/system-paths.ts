/**
 * Absolute paths of the system programs local-pty runs. Never looked up through PATH: the host's PATH
 * is not ours to trust, and the fixed environment of the command does not apply to us.
 */
export const SCRIPT_PATH = '/usr/bin/script';
/** Makes `script` die with the host (`--pdeathsig KILL`), so a SIGKILLed host leaves no PTY behind. */
export const SETPRIV_PATH = '/usr/bin/setpriv';
/** Closes descriptors the host inherited without close-on-exec; dash cannot close fds above 9. */
export const BASH_PATH = '/bin/bash';
/** The wrapper shell `script` runs the `-c` string with; pinned through SHELL in the fixed environment. */
export const WRAPPER_SHELL_PATH = '/bin/sh';
export const GREP_PATH = '/usr/bin/grep';
export const STTY_PATH = '/usr/bin/stty';
/** Runs the wrapper in one process where it can (perl-wrapper.ts); perl-base is part of every Debian and Ubuntu. */
export const PERL_PATH = '/usr/bin/perl';
