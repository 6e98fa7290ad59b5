import { PtyError } from '../errors.js';
import { MAX_WRITE_BYTES } from '../limits.js';
import { isHighSurrogate, isLowSurrogate, isSurrogate } from '../text/surrogates.js';

/**
 * The model writes terminal input as a JSON string; a JSON string cannot carry raw bytes such as 0xFF, and
 * models are unreliable at emitting control characters literally. So `pty_write` data gets a second, tiny
 * escape layer, decoded here. `formatBytesVisibly` is its inverse for permission prompts.
 *
 * @example decodeEscapes('ls -la\\r')       // <Buffer 6c 73 20 2d 6c 61 0d>
 * @example decodeEscapes('\\x1b[A')         // <Buffer 1b 5b 41>: arrow up
 * @example formatBytesVisibly(Buffer.from([0x03])) // '\\x03'
 */

const ACCEPTED_ESCAPES =
  'accepted escapes are \\n, \\r, \\t, \\\\ (one backslash), \\xNN (exactly two hex digits: one raw byte) and \\uNNNN ' +
  '(exactly four hex digits, sent as UTF-8; characters beyond U+FFFF as a surrogate pair like \\uD83D\\uDE00)';

const BACKSLASH = 0x5c;
const MAX_UTF8_BYTES_PER_UNIT = 3;
/** The most characters one decoded byte can take: `\u0041` is six characters for one byte. */
const MAX_CHARS_PER_BYTE = 6;

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09, '\\': 0x5c };

const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Decodes the escape layer into the bytes to write; throws `PtyError('invalid_input' | 'limit')`. */
export function decodeEscapes(data: string): Buffer {
  // Past this the data is over the limit whatever it holds; decoding it would only cost time and memory.
  if (data.length > MAX_WRITE_BYTES * MAX_CHARS_PER_BYTE) {
    throw overLimit(`${data.length} characters, which decode to more than ${MAX_WRITE_BYTES} bytes`);
  }
  // No UTF-16 unit becomes more than three UTF-8 bytes, and no escape more bytes than characters.
  const out = Buffer.allocUnsafe(data.length * MAX_UTF8_BYTES_PER_UNIT);
  let size = 0;
  let literalStart = 0;
  let i = 0;
  while (i < data.length) {
    if (data.charCodeAt(i) !== BACKSLASH) {
      i++;
      continue;
    }
    if (i > literalStart) size += writeLiteral(data, literalStart, i, out, size);
    const [decoded, length] = decodeEscapeAt(data, i);
    if (typeof decoded === 'number') out[size++] = decoded;
    else size += out.write(decoded, size, 'utf8');
    i += length;
    literalStart = i;
  }
  if (i > literalStart) size += writeLiteral(data, literalStart, i, out, size);
  if (size > MAX_WRITE_BYTES) throw overLimit(`${size} bytes after decoding escapes`);
  // A copy, so the caller does not hold the whole worst-case allocation.
  return Buffer.from(out.subarray(0, size));
}

function overLimit(what: string): PtyError {
  return new PtyError(
    'limit',
    `pty_write data is ${what}; one write may hold at most ${MAX_WRITE_BYTES} bytes (MAX_WRITE_BYTES). Split it into several pty_write calls.`,
  );
}

/**
 * Writes the UTF-8 of `data[start, end)` at `offset`, returning the byte count. A lone surrogate has no UTF-8
 * form; silently sending U+FFFD instead would be a lie.
 */
function writeLiteral(data: string, start: number, end: number, out: Buffer, offset: number): number {
  const text = data.slice(start, end);
  if (!text.isWellFormed()) {
    for (let i = start; i < end; i++) {
      const unit = data.charCodeAt(i);
      if (isHighSurrogate(unit) && i + 1 < end && isLowSurrogate(data.charCodeAt(i + 1))) i++;
      else if (isSurrogate(unit)) throw loneSurrogate(unit, i);
    }
  }
  return out.write(text, offset, 'utf8');
}

function loneSurrogate(unit: number, position: number): PtyError {
  return new PtyError(
    'invalid_input',
    `pty_write data has a lone surrogate U+${hex(unit, 4)} at position ${position} (counting characters from 0); it has no UTF-8 encoding. ` +
      `Send a complete surrogate pair (like \\uD83D\\uDE00) or the character itself.`,
  );
}

/**
 * What the escape starting with the backslash at `at` stands for, a raw byte or characters to send as UTF-8,
 * and how many characters it spans.
 */
function decodeEscapeAt(data: string, at: number): [number | string, number] {
  const kind = data[at + 1];
  if (kind === undefined) throw badEscape(at, '\\', 'a lone backslash ends the data');
  const simple = SIMPLE_ESCAPES[kind];
  if (simple !== undefined) return [simple, 2];
  if (kind === 'x') {
    const digits = data.slice(at + 2, at + 4);
    if (!HEX2.test(digits)) throw badEscape(at, `\\x${digits}`, '\\x needs exactly two hex digits');
    return [Number.parseInt(digits, 16), 4];
  }
  if (kind === 'u') return decodeUnicodeEscapeAt(data, at);
  throw badEscape(at, `\\${String.fromCodePoint(data.codePointAt(at + 1) as number)}`, 'unknown escape');
}

function decodeUnicodeEscapeAt(data: string, at: number): [string, number] {
  const unit = readUnitEscape(data, at);
  if (isLowSurrogate(unit)) throw loneSurrogateEscape(at, unit);
  if (!isHighSurrogate(unit)) return [String.fromCharCode(unit), 6];
  const low = data.startsWith('\\u', at + 6) ? readUnitEscape(data, at + 6) : undefined;
  if (low === undefined || !isLowSurrogate(low)) throw loneSurrogateEscape(at, unit);
  return [String.fromCharCode(unit, low), 12];
}

function readUnitEscape(data: string, at: number): number {
  const digits = data.slice(at + 2, at + 6);
  if (!HEX4.test(digits)) throw badEscape(at, `\\u${digits}`, '\\u needs exactly four hex digits');
  return Number.parseInt(digits, 16);
}

function loneSurrogateEscape(at: number, unit: number): PtyError {
  return badEscape(
    at,
    `\\u${hex(unit, 4)}`,
    `U+${hex(unit, 4)} is half of a surrogate pair and has no UTF-8 encoding on its own; write the pair as \\uD83D\\uDE00 (high then low)`,
  );
}

function badEscape(position: number, sequence: string, why: string): PtyError {
  return new PtyError(
    'invalid_input',
    `pty_write data has an invalid escape ${quoteVisibly(sequence)} at position ${position} (counting characters from 0): ${why}. ` +
      `The ${ACCEPTED_ESCAPES}. Write a literal backslash as \\\\.`,
  );
}

/** The offending sequence may itself hold a newline or an escape byte; the error message must not. */
function quoteVisibly(sequence: string): string {
  return `"${sequence.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `<U+${hex(c.charCodeAt(0), 4)}>`)}"`;
}

function hex(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

// ── Visible rendering ─────────────────────────────────────────────────────────────────────────

const VISIBLE_ESCAPES: Readonly<Record<number, string>> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x5c: '\\\\' };

/**
 * Characters that are valid UTF-8 yet draw nothing or pass for something else in a prompt: C1 controls
 * (U+009B is a terminal CSI), format characters (bidi overrides, zero-width joiners, BOM), line/paragraph
 * separators, spaces other than U+0020, private-use and unassigned code points. Shown as `\uNNNN`, which
 * decodes back to the same UTF-8 bytes.
 */
const HIDDEN_CHARACTER = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Zs}]$/u;
/**
 * Characters of other classes that draw nothing either: fillers (Hangul, braille blank), the combining grapheme
 * joiner, Khmer and Mongolian invisibles, the object replacement character and the supplementary variation selectors
 * (enough of them hide any data after a visible letter).
 */
const BLANK_CODE_POINTS: ReadonlySet<number> = new Set([
  0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180c, 0x180d, 0x180e, 0x180f, 0x2800, 0x3164, 0xffa0, 0xfffc,
]);
const isBlankCharacter = (char: string): boolean => {
  const codePoint = char.codePointAt(0) as number;
  return BLANK_CODE_POINTS.has(codePoint) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef);
};
/** A variation selector is a character's own presentation only after an emoji (❤️); after anything else it hides. */
const VARIATION_SELECTOR = /^[\uFE00-\uFE0F]$/;
const EMOJI = /^\p{Extended_Pictographic}$/u;
/** A combining mark right after an escape would draw onto its last character (`\n` + U+0301 looks like `\ń`). */
const COMBINING_MARK = /^\p{M}$/u;

/**
 * Renders bytes so that a person approving them sees every byte that acts on a terminal, and so that
 * `decodeEscapes(formatBytesVisibly(b))` is exactly `b`: printable ASCII as is, \n \r \t \\ as those escapes,
 * other controls and bytes that are not valid UTF-8 as `\xNN`, valid non-ASCII UTF-8 as its characters
 * (hidden ones as `\uNNNN`).
 */
export function formatBytesVisibly(buf: Buffer): string {
  let out = '';
  let afterEscape = true;
  /** The last non-ASCII character shown (a variation selector is shown plainly only after an emoji). */
  let previous = '';
  let i = 0;
  while (i < buf.length) {
    const byte = buf[i] as number;
    if (byte < 0x80) {
      previous = '';
      const named = VISIBLE_ESCAPES[byte];
      if (named !== undefined) out += named;
      else if (byte < 0x20 || byte === 0x7f) out += `\\x${hex(byte, 2)}`;
      else out += String.fromCharCode(byte);
      afterEscape = named !== undefined || byte < 0x20 || byte === 0x7f;
      i++;
      continue;
    }
    const length = utf8SequenceLength(buf, i);
    if (length === 0) {
      out += `\\x${hex(byte, 2)}`;
      afterEscape = true;
      i++;
      continue;
    }
    const char = buf.toString('utf8', i, i + length);
    const hidden =
      HIDDEN_CHARACTER.test(char) ||
      isBlankCharacter(char) ||
      (VARIATION_SELECTOR.test(char) && (afterEscape || !EMOJI.test(previous))) ||
      (afterEscape && COMBINING_MARK.test(char));
    out += hidden ? unicodeEscape(char) : char;
    afterEscape = hidden;
    previous = char;
    i += length;
  }
  return out;
}

function unicodeEscape(char: string): string {
  let out = '';
  for (let k = 0; k < char.length; k++) out += `\\u${hex(char.charCodeAt(k), 4)}`;
  return out;
}

/**
 * Length of the well-formed UTF-8 sequence starting at `at` (Unicode table 3-7: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 when the lead byte does not start one.
 */
function utf8SequenceLength(buf: Buffer, at: number): number {
  const lead = buf[at] as number;
  let length: number;
  let secondMin = 0x80;
  let secondMax = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) secondMin = 0xa0;
    if (lead === 0xed) secondMax = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) secondMin = 0x90;
    if (lead === 0xf4) secondMax = 0x8f;
  } else return 0;
  if (at + length > buf.length) return 0;
  const second = buf[at + 1] as number;
  if (second < secondMin || second > secondMax) return 0;
  for (let k = 2; k < length; k++) {
    const next = buf[at + k] as number;
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}
