/**
 * The special keys pty_write can press by name, and how an xterm-compatible terminal (TERM=xterm-256color,
 * the TERM our PTYs get) encodes each. Names follow tmux's send-keys; the aliases are the other spellings people
 * and tmux use for the same key.
 */

/** How a key is sent: `csi` keys take a modifier as `ESC [ 1 ; m X`, `tilde` keys as `ESC [ n ; m ~`. */
export type SpecialKey =
  | { readonly kind: 'byte'; readonly bytes: string }
  /** Arrows, Home, End: `ESC [ X`, or `ESC O X` while the program asked for application cursor keys. */
  | { readonly kind: 'cursor'; readonly final: string }
  /** F1–F4: `ESC O X` whatever the mode; with a modifier `ESC [ 1 ; m X`. */
  | { readonly kind: 'ss3'; readonly final: string }
  | { readonly kind: 'tilde'; readonly code: number };

export const SPECIAL_KEYS: Readonly<Record<string, SpecialKey>> = {
  Enter: { kind: 'byte', bytes: '\r' },
  Tab: { kind: 'byte', bytes: '\t' },
  Esc: { kind: 'byte', bytes: '\x1b' },
  Backspace: { kind: 'byte', bytes: '\x7f' },
  Space: { kind: 'byte', bytes: ' ' },
  Up: { kind: 'cursor', final: 'A' },
  Down: { kind: 'cursor', final: 'B' },
  Right: { kind: 'cursor', final: 'C' },
  Left: { kind: 'cursor', final: 'D' },
  Home: { kind: 'cursor', final: 'H' },
  End: { kind: 'cursor', final: 'F' },
  Insert: { kind: 'tilde', code: 2 },
  Delete: { kind: 'tilde', code: 3 },
  PageUp: { kind: 'tilde', code: 5 },
  PageDown: { kind: 'tilde', code: 6 },
  F1: { kind: 'ss3', final: 'P' },
  F2: { kind: 'ss3', final: 'Q' },
  F3: { kind: 'ss3', final: 'R' },
  F4: { kind: 'ss3', final: 'S' },
  F5: { kind: 'tilde', code: 15 },
  F6: { kind: 'tilde', code: 17 },
  F7: { kind: 'tilde', code: 18 },
  F8: { kind: 'tilde', code: 19 },
  F9: { kind: 'tilde', code: 20 },
  F10: { kind: 'tilde', code: 21 },
  F11: { kind: 'tilde', code: 23 },
  F12: { kind: 'tilde', code: 24 },
};

/** Other spellings of the same keys (tmux's own names among them), matched without regard to case. */
export const KEY_ALIASES: Readonly<Record<string, string>> = {
  return: 'Enter',
  escape: 'Esc',
  bspace: 'Backspace',
  bs: 'Backspace',
  dc: 'Delete',
  del: 'Delete',
  ic: 'Insert',
  ins: 'Insert',
  pgup: 'PageUp',
  ppage: 'PageUp',
  pgdn: 'PageDown',
  npage: 'PageDown',
};

/** tmux's name for Shift-Tab. */
export const BACK_TAB_ALIAS = 'btab';
