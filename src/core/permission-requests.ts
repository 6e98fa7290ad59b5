import { shellWords } from '../engine/shell-quote.js';
import { formatBytesVisibly } from '../protocol/escape-codec.js';
import type { PermissionRequest } from './host-port.js';

// What the user is asked before each PTY action: the permission key, the patterns their rules match, the prompt's
// title and what the host shows beside it. Command lines are `shellCommandLine`'s (words quoted only where they
// need it), typed bytes as the user would read them.

/**
 * The command line as a prompt shows it: `shellCommandLine`, but a word holding a control, invisible or look-alike
 * character (a carriage return and an erase sequence that hide what comes before them, a bidi override) is shown as
 * bash's `$'…'` with those escaped, as pty_write's prompt shows typed bytes, so that what the user approves reads as
 * what runs. Such a word is quoted that way in the prompt only; the program gets its bytes.
 */
export function promptCommandLine(command: string, args: readonly string[]): string {
  const words = [command, ...args];
  return shellWords(command, args)
    .map((quoted, i) => {
      const word = words[i] as string;
      const visible = formatBytesVisibly(Buffer.from(word, 'utf8'));
      return visible === word.replaceAll('\\', '\\\\') ? quoted : `$'${bashEscapes(visible).replaceAll("'", "\\'")}'`;
    })
    .join(' ');
}

/** A character beyond U+FFFF is shown as its surrogate pair (`\uD834\uDD73`, as data's escapes read); bash's $'…' reads `\U0001D173`. */
const bashEscapes = (visible: string): string =>
  // Only an escape: a `\u` after an odd number of backslashes is an escaped backslash and the letter u.
  visible.replace(
    /(?<!\\)((?:\\\\)*)\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})/g,
    (_, backslashes: string, high: string, low: string) => {
      const codePoint = (Number.parseInt(high, 16) - 0xd800) * 0x400 + (Number.parseInt(low, 16) - 0xdc00) + 0x10000;
      return `${backslashes}\\U${codePoint.toString(16).toUpperCase().padStart(8, '0')}`;
    },
  );

/** Text the model chose (a description, a program's name), every control and invisible character in it escaped. */
const visibleText = (text: string): string => formatBytesVisibly(Buffer.from(text, 'utf8'));

/** A workdir outside the project: asked before the command itself. */
export function externalDirectoryRequest(realPath: string, commandLine: string): PermissionRequest {
  return {
    permission: 'external_directory',
    // Everything under the directory: `//*` for the root would match no rule written for `/*`.
    patterns: [realPath === '/' ? '/*' : `${realPath}/*`],
    title: `Run a PTY in ${realPath}, outside the project`,
    metadata: { directory: realPath, command: commandLine },
  };
}

export function spawnRequest(commandLine: string, workdir: string, description: string): PermissionRequest {
  return {
    permission: 'bash',
    patterns: [commandLine],
    title: `Start PTY: ${commandLine}`,
    metadata: { command: commandLine, workdir, description: visibleText(description), tool: 'pty_spawn' },
  };
}

/** `keys`: the named keys as the model gave them, when it did; `visible`: the bytes, escaped for reading. */
export function typingRequest(
  id: string,
  program: string,
  commandLine: string,
  typed: { readonly visible: string; readonly byteCount: number; readonly keys: string | undefined },
): PermissionRequest {
  const { visible, byteCount, keys } = typed;
  return {
    permission: 'bash',
    // Not the bytes alone: a rule written for commands ("git *": "allow") would then approve typing
    // `git status; rm -rf ~` into a shell unasked. Typing is allowed by rules of its own ("pty_write *").
    patterns: [`pty_write ${visible}`],
    title: `Type into ${id} (${visibleText(program)}): ${keys === undefined ? visible : `${keys} (bytes: ${visible})`}`,
    metadata: {
      id,
      command: commandLine,
      bytes: visible,
      byteCount,
      ...(keys === undefined ? {} : { keys }),
      tool: 'pty_write',
    },
  };
}

export function killRequest(id: string, commandLine: string, cleanup: boolean): PermissionRequest {
  return {
    permission: 'bash',
    // Not `kill …`: that is also what spawning the program kill looks like; this must read as ending a PTY.
    patterns: [`pty_kill ${commandLine}`],
    title: `End PTY ${id}: ${commandLine}`,
    metadata: { id, command: commandLine, cleanup, tool: 'pty_kill' },
  };
}
