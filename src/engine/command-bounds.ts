import { PtyError } from '../errors.js';
import { MAX_ARG_BYTES, MAX_ARGS, MAX_COMMAND_BYTES, MAX_PATH_BYTES, MAX_TOTAL_ARG_BYTES } from '../limits.js';

function checkText(what: string, value: string, maxBytes: number): number {
  if (value.includes('\0')) {
    throw new PtyError('invalid_input', `${what} contains a NUL byte, which no program argument can carry. Remove it.`);
  }
  if (!value.isWellFormed()) {
    throw new PtyError('invalid_input', `${what} is not valid UTF-8 (it holds a lone surrogate). Send valid text.`);
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > maxBytes) {
    throw new PtyError('limit', `${what} is ${bytes} bytes; the limit is ${maxBytes} bytes. Shorten it.`);
  }
  return bytes;
}

/** Checks every byte bound of a command before anything starts; throws a PtyError naming the limit. */
export function checkCommandBounds(command: string, args: readonly string[]): void {
  if (command.length === 0) {
    throw new PtyError('invalid_input', 'command is empty. Give the program to run, e.g. "python3".');
  }
  checkText('command', command, MAX_COMMAND_BYTES);
  if (args.length > MAX_ARGS) {
    throw new PtyError('limit', `${args.length} arguments given; the limit is ${MAX_ARGS}. Pass fewer arguments.`);
  }
  let total = 0;
  args.forEach((arg, i) => {
    total += checkText(`args[${i}]`, arg, MAX_ARG_BYTES);
  });
  if (total > MAX_TOTAL_ARG_BYTES) {
    throw new PtyError(
      'limit',
      `the arguments together are ${total} bytes; the limit is ${MAX_TOTAL_ARG_BYTES} bytes. Pass less, or write it to the program through pty_write.`,
    );
  }
}

export function checkPathBounds(what: string, path: string): void {
  if (path.length === 0)
    throw new PtyError('invalid_input', `${what} is empty. Give an absolute or project-relative directory.`);
  checkText(what, path, MAX_PATH_BYTES);
}
