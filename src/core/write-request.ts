import { PtyError } from '../errors.js';
import { checkInput, encodeInput, needsKeyModes, type InputItem } from '../keys/write-input.js';
import type { TerminalSize } from '../screen/xterm.js';
import { decodeEscapes, formatBytesVisibly } from '../protocol/escape-codec.js';
import type { WriteInput } from '../protocol/tool-inputs.js';
import type { PtySession } from './pty-session.js';

/** What one pty_write asks for: a new size, something to type, or both (the size first). */
export interface WriteRequest {
  readonly resize: TerminalSize | undefined;
  /** Undefined when nothing is typed (a resize alone). */
  readonly typing: { readonly data: Buffer } | { readonly input: readonly InputItem[] } | undefined;
}

/** Checks the shape of a write before anything is asked or done: exactly one way to type, or a resize alone. */
export function writeRequest(input: WriteInput): WriteRequest {
  if (input.data !== undefined && input.input !== undefined) {
    throw new PtyError(
      'invalid_input',
      'pty_write: give either data (escaped text) or input (a list of text and keys), not both; put the text of data into input as { "text": ... } items. Nothing was written.',
    );
  }
  if (input.data === undefined && input.input === undefined && input.resize === undefined) {
    throw new PtyError(
      'invalid_input',
      'pty_write: nothing to do: give data or input to type, or resize to change the terminal size. Nothing was written.',
    );
  }
  if (input.input !== undefined) checkInput(input.input as InputItem[]);
  // Decoded now, so bad escapes are refused before anything else is looked at, as before input lists existed.
  const typing =
    input.data !== undefined
      ? { data: decodeEscapes(input.data) }
      : input.input !== undefined
        ? { input: input.input as InputItem[] }
        : undefined;
  return { resize: input.resize, typing };
}

export interface TypedBytes {
  readonly bytes: Buffer;
  /** The exact bytes, shown visibly (escapes for control bytes). */
  readonly visible: string;
  /** Keys by name and text as typed, when typed as an input list. */
  readonly keys: string | undefined;
}

/** The bytes to type; keys that depend on the terminal's mode ask the screen emulator for it first. */
export async function typedBytes(
  session: PtySession,
  typing: NonNullable<WriteRequest['typing']>,
): Promise<TypedBytes> {
  if ('data' in typing) return { bytes: typing.data, visible: formatBytesVisibly(typing.data), keys: undefined };
  const modes = needsKeyModes(typing.input) ? await session.screen.keyModes() : { applicationCursorKeys: false };
  const { bytes, shown } = encodeInput(typing.input, modes);
  return { bytes, visible: formatBytesVisibly(bytes), keys: shown };
}
