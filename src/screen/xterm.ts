import * as unicode11Module from '@xterm/addon-unicode11';
import * as xtermModule from '@xterm/headless';
import { KEPT_EMULATOR_SPECIMENS } from '../limits.js';
import { bundleExport } from '../shapes/bundle-export.js';
import { Specimens } from '../shapes/specimens.js';

export type XtermTerminal = xtermModule.Terminal;
type TerminalClass = typeof xtermModule.Terminal;

const TerminalCtor = bundleExport<TerminalClass>(xtermModule, 'Terminal', '@xterm/headless');
const Unicode11Ctor = bundleExport<typeof unicode11Module.Unicode11Addon>(
  unicode11Module,
  'Unicode11Addon',
  '@xterm/addon-unicode11',
);

export interface TerminalSize {
  readonly rows: number;
  readonly cols: number;
}

/**
 * A screen-only emulator: no scrollback (the line log is the history), a bare line feed starts a new line (our PTYs
 * turn onlcr off, so programs' `\n` reaches us without the `\r` a terminal would get), and the buffer API on.
 */
export function createTerminal(size: TerminalSize): XtermTerminal {
  // logLevel off: xterm.js logs sequences it does not know to the console, which is the host's.
  const terminal = new TerminalCtor({
    rows: size.rows,
    cols: size.cols,
    scrollback: 0,
    convertEol: true,
    allowProposedApi: true,
    logLevel: 'off',
  });
  // Character widths as glibc's wcwidth and tmux give them, which is what programs lay their lines out by: xterm.js's
  // own table (Unicode 6) takes an emoji for one column, so a line of them wrapped and a cursor after one stood
  // elsewhere than the program meant.
  terminal.loadAddon(new Unicode11Ctor());
  terminal.unicode.activeVersion = '11';
  return terminal;
}

/**
 * The last emulator of a removed PTY, reset (so none of its screen stays) and disposed when the next one comes: its
 * hidden classes then outlive the PTY, and the next PTY's screen reads find xterm.js still optimized (see Specimens).
 */
export const emulatorSpecimens = new Specimens<XtermTerminal>(KEPT_EMULATOR_SPECIMENS, (terminal) =>
  terminal.dispose(),
);

/**
 * Hands an emulator its owner is done with to emulatorSpecimens, its screen and modes reset. The reset waits for
 * the writes already queued (xterm.js parses them later, and a reset before would see them land on the blank
 * screen), and is skipped if the emulator was released (disposed) meanwhile.
 */
export function retireTerminal(terminal: XtermTerminal): void {
  emulatorSpecimens.keep(terminal);
  terminal.write('', () => {
    if (emulatorSpecimens.specimens.includes(terminal)) terminal.reset();
  });
}

/** DECTCEM (`ESC [ ? 25 l` hides the cursor) has no public getter; this reads xterm.js's own flag when it is there. */
export function cursorHidden(terminal: XtermTerminal): boolean {
  const core = (terminal as unknown as { _core?: { coreService?: { isCursorHidden?: unknown } } })._core;
  return core?.coreService?.isCursorHidden === true;
}

/**
 * Whether the terminal is as skipPoint's cursor model assumes: the normal screen, auto-wrap on, no insert or reverse
 * wrap mode, the whole screen as the scroll region, and its parser between sequences (a chunk edge can fall inside
 * one). The last two only xterm.js's internals tell; without them, no.
 */
export function plainDefaults(terminal: XtermTerminal): boolean {
  const { modes } = terminal;
  if (
    terminal.buffer.active.type !== 'normal' ||
    !modes.wraparoundMode ||
    modes.insertMode ||
    modes.reverseWraparoundMode
  )
    return false;
  const core = (terminal as unknown as { _core?: XtermInternals })._core;
  const region = core?.buffer;
  return (
    region?.scrollTop === 0 &&
    region.scrollBottom === terminal.rows - 1 &&
    core?._inputHandler?._parser?.currentState === PARSER_GROUND
  );
}

interface XtermInternals {
  readonly buffer?: { readonly scrollTop?: unknown; readonly scrollBottom?: unknown };
  readonly _inputHandler?: { readonly _parser?: { readonly currentState?: unknown } };
}

/** xterm.js's parser state between sequences (ParserState.GROUND). */
const PARSER_GROUND = 0;
