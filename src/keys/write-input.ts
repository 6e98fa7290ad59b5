import { PtyError } from '../errors.js';
import { KEY_PRESS_GAP_MS, MAX_INPUT_ITEMS, MAX_KEY_PRESSES, MAX_KEY_REPEAT, MAX_WRITE_BYTES } from '../limits.js';
import { formatBytesVisibly } from '../protocol/escape-codec.js';
import { dependsOnModes, encodeKey, parseKey, type KeyModes } from './encode-key.js';

/**
 * One item of pty_write's `input`: text typed exactly as given (no escapes: a backslash is a backslash, so code with
 * `"a\\nb"` in it arrives as written; keys are what named keys are for), or a key pressed `times` times.
 */
export type InputItem = { readonly text: string } | { readonly key: string; readonly times?: number };

export interface EncodedInput {
  readonly bytes: Buffer;
  /**
   * The same bytes as the writes a person typing would make: each key press its own (a repeat too), the text between
   * them one. One write of `Tab Tab` was one read for the Node REPL, which took it for pasted text, and `…<Esc>` left
   * vim waiting a second to tell the Esc from the start of a key's sequence.
   */
  readonly presses: readonly Buffer[];
  /** For the permission prompt: text as typed, in quotes, keys by name (`"ls -l" <Enter> <C-c>×3`). */
  readonly shown: string;
}

function invalid(message: string): PtyError {
  return new PtyError('invalid_input', `pty_write: ${message} Nothing was written.`);
}

/** Refuses a bad list before anything is asked or written: unknown keys, empty text, an item with both or neither. */
export function checkInput(items: readonly InputItem[]): void {
  if (items.length === 0) throw invalid('input must hold at least one item ({ "text": "..." } or { "key": "Enter" }).');
  if (items.length > MAX_INPUT_ITEMS)
    throw invalid(`input holds ${items.length} items; at most ${MAX_INPUT_ITEMS} (MAX_INPUT_ITEMS).`);
  items.forEach((item, index) => {
    const has = { text: 'text' in item, key: 'key' in item };
    if (has.text === has.key)
      throw invalid(
        `input[${index}] must have exactly one of "text" or "key" (got ${has.text ? 'both' : 'neither'}); put each in its own item, in the order they are typed.`,
      );
    if ('text' in item) {
      if (item.text.length === 0) throw invalid(`input[${index}].text is empty.`);
      if (!item.text.isWellFormed())
        throw invalid(`input[${index}].text holds a lone surrogate, which has no UTF-8 encoding; send valid text.`);
      return;
    }
    parseKey(item.key);
    const times = item.times ?? 1;
    if (!Number.isSafeInteger(times) || times < 1 || times > MAX_KEY_REPEAT)
      throw invalid(`input[${index}].times must be a whole number from 1 to ${MAX_KEY_REPEAT}, got ${times}.`);
  });
}

/** Whether encoding the list needs the terminal's current modes (an unmodified arrow, Home or End). */
export function needsKeyModes(items: readonly InputItem[]): boolean {
  return items.some((item) => 'key' in item && dependsOnModes(item.key));
}

/** The bytes of the whole list, in order, as the terminal in `modes` would send them. */
export function encodeInput(items: readonly InputItem[], modes: KeyModes): EncodedInput {
  checkInput(items);
  const presses: Buffer[] = [];
  const shown: string[] = [];
  let size = 0;
  let text: Buffer[] = [];
  for (const item of items) {
    if ('text' in item) {
      const part = Buffer.from(item.text, 'utf8');
      text.push(part);
      // Quoted, so text that reads like a key (`<Enter>`) or holds spaces is told apart from the keys around it.
      shown.push(`"${formatBytesVisibly(part).replaceAll('"', '\\"')}"`);
      size += part.length;
    } else {
      if (text.length > 0) presses.push(Buffer.concat(text));
      text = [];
      const times = item.times ?? 1;
      const press = Buffer.from(encodeKey(item.key, modes), 'utf8');
      for (let k = 0; k < times; k++) presses.push(press);
      shown.push(`<${item.key}>${times > 1 ? `×${times}` : ''}`);
      size += press.length * times;
    }
    if (size > MAX_WRITE_BYTES)
      throw invalid(
        `input encodes to more than ${MAX_WRITE_BYTES} bytes (MAX_WRITE_BYTES); split it into several pty_write calls.`,
      );
  }
  if (text.length > 0) presses.push(Buffer.concat(text));
  if (presses.length > MAX_KEY_PRESSES)
    throw invalid(
      `input types ${presses.length} key presses (each key, each repeat, and the text between keys, ${KEY_PRESS_GAP_MS} ms apart); at most ${MAX_KEY_PRESSES} (MAX_KEY_PRESSES) per call: split it into several pty_write calls.`,
    );
  return { bytes: Buffer.concat(presses), presses, shown: shown.join(' ') };
}
