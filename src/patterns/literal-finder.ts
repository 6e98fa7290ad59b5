import { asBuffer } from '../text/ascii-text.js';
import type { RequiredLiterals } from './required-literals.js';

/** Where the next of a pattern's required literals is in a text. */
export interface LiteralFinder {
  /** The index of a character of the first occurrence at or after `from`, or -1. */
  find(text: string, from: number): number;
}

/**
 * One literal is found with `indexOf`; several, or a caseless one, with one RegExp of them. A RegExp of plain
 * literals cannot backtrack past a literal's length, and they are at most MAX_PREFILTER_LITERALS short texts.
 */
export function literalFinder({ literals, ignoreCase }: RequiredLiterals): LiteralFinder {
  const [only] = literals;
  if (!ignoreCase && literals.length === 1 && only !== undefined) {
    return { find: (text, from) => text.indexOf(only, from) };
  }
  const search = new RegExp(literals.map((literal) => escaped(literal, ignoreCase)).join('|'), ignoreCase ? 'gi' : 'g');
  return {
    find(text, from) {
      search.lastIndex = from;
      // A literal holds no newline: its last character is on the line its first is on.
      return search.test(text) ? search.lastIndex - 1 : -1;
    },
  };
}

/**
 * Every code unit written as \uXXXX but letters and digits. Caseless, RE2 folds k with U+212A (Kelvin sign) and s
 * with U+017F (long s); RegExp's `i` without `u` never maps a non-ASCII character to ASCII, so those two are named.
 */
function escaped(literal: string, ignoreCase: boolean): string {
  let source = '';
  for (let i = 0; i < literal.length; i++) {
    const char = literal[i] as string;
    const lower = char.toLowerCase();
    if (ignoreCase && lower === 'k') source += '[k\\u212A]';
    else if (ignoreCase && lower === 's') source += '[s\\u017F]';
    else if (/[0-9A-Za-z]/.test(char)) source += char;
    else source += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
  return source;
}

/**
 * Whether ASCII bytes may hold one of the literals, tested on the bytes themselves (memmem): false only when none is
 * in them. A plain flood kept as bytes (OutputBuffer) is then scanned without its text ever being made. Undefined
 * when the bytes cannot tell: a caseless literal with a letter in it. A literal with a non-ASCII character is never in
 * ASCII bytes.
 */
export function asciiLiteralTest({
  literals,
  ignoreCase,
}: RequiredLiterals): ((bytes: Uint8Array) => boolean) | undefined {
  if (ignoreCase && literals.some((literal) => /[A-Za-z]/.test(literal))) return undefined;
  const searched = literals.filter((literal) => isAsciiText(literal)).map((literal) => Buffer.from(literal, 'latin1'));
  // A loop, not `some` with an arrow: it runs on every part of a flood, and a closure per call is garbage per chunk.
  return (bytes) => {
    const haystack = asBuffer(bytes);
    for (let i = 0; i < searched.length; i++) if (haystack.indexOf(searched[i] as Buffer) !== -1) return true;
    return false;
  };
}

function isAsciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
