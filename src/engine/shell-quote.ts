/** A word made only of these needs no quotes in any POSIX shell (the set Python's `shlex.quote` leaves bare). */
const BARE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * POSIX quoting, only where a word needs it: inside '…' every byte is literal except the quote itself, which is
 * closed, escaped and reopened. So `$()`, backticks, globs, newlines and non-ASCII reach the program unchanged,
 * and plain words stay plain, so that the user's `bash` rules (`"git *"`) match the command line.
 */
export function shellQuote(word: string): string {
  return BARE_WORD.test(word) ? word : singleQuote(word);
}

function singleQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The exact command line: what a user's `bash` permission rules are matched against, and what the wrapper
 * shell execs. A bare first word holding `=` would read as a variable assignment, so that one is quoted.
 */
export function shellCommandLine(command: string, args: readonly string[]): string {
  return shellWords(command, args).join(' ');
}

/** The words of `shellCommandLine`, each quoted as it needs. */
export function shellWords(command: string, args: readonly string[]): string[] {
  const program = command.includes('=') ? singleQuote(command) : shellQuote(command);
  return [program, ...args.map(shellQuote)];
}
