import { match } from 'ts-pattern';
import { PtyError } from '../errors.js';
import { BACK_TAB_ALIAS, KEY_ALIASES, SPECIAL_KEYS, type SpecialKey } from './key-names.js';

const ESC = '\x1b';

/** What the terminal's current modes change in how keys are sent. */
export interface KeyModes {
  /** DECCKM (`ESC [ ? 1 h`): arrows, Home and End are sent as `ESC O X` instead of `ESC [ X`. */
  readonly applicationCursorKeys: boolean;
}

interface Modifiers {
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
}

export interface ParsedKey {
  readonly modifiers: Modifiers;
  /** A special key's canonical name, or the single character pressed. */
  readonly key: { readonly special: string } | { readonly char: string };
}

const MODIFIER_PREFIX = /^([CMS])-(.+)$/s;

/** Characters Ctrl can be combined with, as a terminal sends them (C-a is 0x01, C-@ and C-Space are NUL). */
function controlByte(char: string): string | undefined {
  if (char === ' ' || char === '@' || char === '2') return '\x00';
  if (char === '?' || char === '8') return '\x7f';
  const code = char.toLowerCase().charCodeAt(0);
  if (char.length === 1 && code >= 0x61 && code <= 0x7a) return String.fromCharCode(code - 0x60);
  const punct: Record<string, string> = {
    '[': '\x1b',
    '3': '\x1b',
    '\\': '\x1c',
    '4': '\x1c',
    ']': '\x1d',
    '5': '\x1d',
    '^': '\x1e',
    '6': '\x1e',
    _: '\x1f',
    '/': '\x1f',
    '7': '\x1f',
  };
  return punct[char];
}

function canonicalSpecial(name: string): string | undefined {
  if (Object.hasOwn(SPECIAL_KEYS, name)) return name;
  const lower = name.toLowerCase();
  const exact = Object.keys(SPECIAL_KEYS).find((k) => k.toLowerCase() === lower);
  return exact ?? KEY_ALIASES[lower];
}

/** Every name pty_write accepts, for the error that refuses an unknown one. */
function keyNameHelp(): string {
  return [
    `keys: ${Object.keys(SPECIAL_KEYS).join(', ')}`,
    `also spelled: ${Object.entries(KEY_ALIASES)
      .map(([alias, key]) => `${alias} (${key})`)
      .join(', ')}, BTab (S-Tab)`,
    'modifiers as prefixes: C- (Ctrl), M- (Alt), S- (Shift), combined like C-M-x; C- goes with a letter, Space or one of @[\\]^_? ; M- with any single character or key; S- with a key (Tab and the cursor, editing and function keys)',
  ].join('; ');
}

function unknown(name: string, why: string): PtyError {
  return new PtyError('invalid_input', `pty_write: key "${name}" ${why}. Known ${keyNameHelp()}. Nothing was written.`);
}

/** Parses a key name such as `Enter`, `C-c`, `M-x`, `C-Left`, `S-Tab`; refuses what a terminal cannot send. */
export function parseKey(name: string): ParsedKey {
  let rest = name;
  let ctrl = false;
  let alt = false;
  let shift = false;
  for (let m = MODIFIER_PREFIX.exec(rest); m !== null && m[2] !== undefined; m = MODIFIER_PREFIX.exec(rest)) {
    // "C--" is Ctrl and the "-" key; "M-" alone is not a key.
    const flag = m[1];
    if (flag === 'C') ctrl = true;
    else if (flag === 'M') alt = true;
    else shift = true;
    rest = m[2];
    if (rest.length === 1) break;
  }
  const modifiers = { ctrl, alt, shift };
  if (rest.toLowerCase() === BACK_TAB_ALIAS)
    return { modifiers: { ...modifiers, shift: true }, key: { special: 'Tab' } };
  const special = canonicalSpecial(rest);
  if (special !== undefined) return { modifiers, key: { special } };
  if ([...rest].length !== 1) throw unknown(name, 'is not a key name');
  if (shift) throw unknown(name, 'combines S- with a character; type the shifted character itself (e.g. "A")');
  if (ctrl && controlByte(rest) === undefined)
    throw unknown(name, `combines C- with "${rest}", which has no Ctrl code on a terminal`);
  return { modifiers, key: { char: rest } };
}

/** xterm's modifier parameter: 1 + Shift 1 + Alt 2 + Ctrl 4. */
function modifierParam({ shift, alt, ctrl }: Modifiers): number {
  return 1 + (shift ? 1 : 0) + (alt ? 2 : 0) + (ctrl ? 4 : 0);
}

function encodeSpecial(name: string, key: SpecialKey, modifiers: Modifiers, modes: KeyModes): string {
  const m = modifierParam(modifiers);
  return match(key)
    .with({ kind: 'cursor' }, ({ final }) => {
      if (m > 1) return `${ESC}[1;${m}${final}`;
      return modes.applicationCursorKeys ? `${ESC}O${final}` : `${ESC}[${final}`;
    })
    .with({ kind: 'ss3' }, ({ final }) => (m > 1 ? `${ESC}[1;${m}${final}` : `${ESC}O${final}`))
    .with({ kind: 'tilde' }, ({ code }) => (m > 1 ? `${ESC}[${code};${m}~` : `${ESC}[${code}~`))
    .with({ kind: 'byte' }, ({ bytes }) => {
      const altPrefix = modifiers.alt ? ESC : '';
      if (name === 'Tab' && modifiers.shift && !modifiers.ctrl) return `${altPrefix}${ESC}[Z`;
      if (name === 'Space' && modifiers.ctrl && !modifiers.shift) return `${altPrefix}\x00`;
      if (modifiers.shift || modifiers.ctrl) {
        // A plain terminal sends these keys the same with or without Shift/Ctrl, so the modifier would be a pretence.
        throw unknown(
          `${modifiers.ctrl ? 'C-' : ''}${modifiers.shift ? 'S-' : ''}${name}`,
          'is sent as the key alone by a terminal; press it without the modifier',
        );
      }
      return `${altPrefix}${bytes}`;
    })
    .exhaustive();
}

/** The bytes a terminal sends for the key, in the given modes. */
export function encodeKey(name: string, modes: KeyModes): string {
  const { modifiers, key } = parseKey(name);
  if ('special' in key) {
    const special = SPECIAL_KEYS[key.special];
    if (special === undefined) throw unknown(name, 'is not a key name');
    return encodeSpecial(key.special, special, modifiers, modes);
  }
  const base = modifiers.ctrl ? (controlByte(key.char) ?? '') : key.char;
  return modifiers.alt ? `${ESC}${base}` : base;
}

/** Whether the key's bytes depend on the terminal's modes (so the emulator must be asked first). */
export function dependsOnModes(name: string): boolean {
  const { modifiers, key } = parseKey(name);
  return 'special' in key && SPECIAL_KEYS[key.special]?.kind === 'cursor' && modifierParam(modifiers) === 1;
}
