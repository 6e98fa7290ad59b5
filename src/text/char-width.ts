import * as unicode11Module from '@xterm/addon-unicode11';
import { bundleExport } from '../shapes/bundle-export.js';

interface WidthProvider {
  wcwidth(codePoint: number): number;
}

/**
 * The Unicode 11 width table the screen's emulator uses (as glibc's wcwidth and tmux), taken from the addon that
 * gives it to xterm.js: activating the addon on a stand-in registers its provider, which is all the table it has.
 */
function unicode11Widths(): WidthProvider {
  const Addon = bundleExport<typeof unicode11Module.Unicode11Addon>(
    unicode11Module,
    'Unicode11Addon',
    '@xterm/addon-unicode11',
  );
  let provider: WidthProvider | undefined;
  new Addon().activate({ unicode: { register: (found: WidthProvider) => (provider = found) } } as never);
  if (provider === undefined) throw new Error('@xterm/addon-unicode11: registered no width provider');
  return provider;
}

const widths = unicode11Widths();

/**
 * The columns a character takes on a terminal's line: 2 for an East Asian wide or full-width character or an emoji,
 * else 1. A character of no width (a combining mark, a joiner) counts 1 here: the line view keeps it as a column of
 * its own rather than lose it.
 */
export function charColumns(codePoint: number): 1 | 2 {
  return codePoint >= 0x1100 && widths.wcwidth(codePoint) === 2 ? 2 : 1;
}

/**
 * Text that may hold a character wider than one column: any unit from U+1100 (the first wide character) up, bar
 * surrogates (their pairs are looked at apart) and the private use area. A cheap test that errs towards yes.
 */
export const MAY_HOLD_WIDE = /[\u1100-\ud7ff\uf900-\uffff]/;
