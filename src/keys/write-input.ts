import { PtyError } from '../errors.js';
import { MAX_INPUT_ITEMS, MAX_KEY_REPEAT, MAX_WRITE_BYTES } from '../limits.js';
import { decodeEscapes, formatBytesVisibly } from '../protocol/escape-codec.js';
import { dependsOnModes, encodeKey, parseKey, type KeyModes } from './encode-key.js';

/** One item of pty_write's `input`: text to type (escapes as in `data`), or a key pressed `times` times. */
export type InputItem = { readonly text: string } | { readonly key: string; readonly times?: number };

export interface EncodedInput {
  readonly bytes: Buffer;
  /** For the permission prompt: text as typed, keys by name (`<Enter>`, `<C-c> ×3`). */
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
  const parts: Buffer[] = [];
  const shown: string[] = [];
  let size = 0;
  for (const [index, item] of items.entries()) {
    let part: Buffer;
    if ('text' in item) {
      part = decodeItemText(item.text, index);
      shown.push(formatBytesVisibly(part));
    } else {
      const times = item.times ?? 1;
      part = Buffer.from(encodeKey(item.key, modes).repeat(times), 'utf8');
      shown.push(`<${item.key}>${times > 1 ? `×${times}` : ''}`);
    }
    size += part.length;
    if (size > MAX_WRITE_BYTES)
      throw invalid(
        `input encodes to more than ${MAX_WRITE_BYTES} bytes (MAX_WRITE_BYTES); split it into several pty_write calls.`,
      );
    parts.push(part);
  }
  return { bytes: Buffer.concat(parts), shown: shown.join(' ') };
}

/** An item's text decoded as `data` is; an error names the item, not `data`, so the model knows which to mend. */
function decodeItemText(text: string, index: number): Buffer {
  try {
    return decodeEscapes(text);
  } catch (err) {
    if (!(err instanceof PtyError)) throw err;
    throw new PtyError(err.code, err.message.replace('pty_write data', `pty_write input[${index}].text`));
  }
}
