/**
 * POSIX single-quoting: inside '…' every byte is literal except the quote itself, which is closed,
 * escaped and reopened. So `$()`, backticks, globs, newlines and non-ASCII reach the program unchanged.
 */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The exact command line a user's `bash` permission rules are matched against. */
export function shellCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellQuote).join(' ');
}
