import { setTimeout as delay } from 'node:timers/promises';
import { PtyError } from '../errors.js';
import { KEY_PRESS_GAP_MS } from '../limits.js';
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
  /** `bytes` as the writes to make, a short pause apart (see EncodedInput.presses); one for `data`. */
  readonly presses: readonly Buffer[];
  /** The exact bytes, shown visibly (escapes for control bytes). */
  readonly visible: string;
  /** Keys by name and text as typed, when typed as an input list. */
  readonly keys: string | undefined;
}

/**
 * Writes the presses in order, KEY_PRESS_GAP_MS apart, as a person's keys arrive. Once some have gone, the rest are
 * not typed when the program can take no more (it ended, was killed, its owner deleted) or the call is aborted: the
 * answer then says how far it got (bytesWritten) and, with a wait, why it ended. An error there read as though
 * nothing had been typed, while the keys that went had been acted on (a confirmation answered, then the program
 * exited).
 */
export async function typePresses(
  session: PtySession,
  presses: readonly Buffer[],
  signal: AbortSignal,
): Promise<number> {
  let written = 0;
  for (const [index, press] of presses.entries()) {
    try {
      if (index > 0) await delay(KEY_PRESS_GAP_MS, undefined, { signal });
      written += await session.write(press);
    } catch (err) {
      if (index === 0) throw err;
      return written;
    }
  }
  return written;
}

/** The bytes to type; keys that depend on the terminal's mode ask the screen emulator for it first. */
export async function typedBytes(
  session: PtySession,
  typing: NonNullable<WriteRequest['typing']>,
): Promise<TypedBytes> {
  if ('data' in typing)
    return { bytes: typing.data, presses: [typing.data], visible: formatBytesVisibly(typing.data), keys: undefined };
  const modes = needsKeyModes(typing.input) ? await session.screen.keyModes() : { applicationCursorKeys: false };
  const { bytes, presses, shown } = encodeInput(typing.input, modes);
  return { bytes, presses, visible: formatBytesVisibly(bytes), keys: shown };
}
