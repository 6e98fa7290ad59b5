import * as xtermModule from '@xterm/headless';

export type XtermTerminal = xtermModule.Terminal;
type TerminalClass = typeof xtermModule.Terminal;

// @xterm/headless is one CommonJS bundle that sets __esModule. Node's ESM loader (the shipped build) sees only its
// default export, module.exports; CommonJS (ts-jest) and Bun see the named export too. Take whichever is there.
const loaded = xtermModule as unknown as { Terminal?: TerminalClass; default?: { Terminal?: TerminalClass } };
const TerminalCtor = loaded.Terminal ?? loaded.default?.Terminal;
if (TerminalCtor === undefined) throw new Error('@xterm/headless: no Terminal export found');

export interface TerminalSize {
  readonly rows: number;
  readonly cols: number;
}

/**
 * A screen-only emulator: no scrollback (the line log is the history), a bare line feed starts a new line (our PTYs
 * turn onlcr off, so programs' `\n` reaches us without the `\r` a terminal would get), and the buffer API on.
 */
export function createTerminal(size: TerminalSize): XtermTerminal {
  return new TerminalCtor!({ rows: size.rows, cols: size.cols, scrollback: 0, convertEol: true, allowProposedApi: true });
}

/** DECTCEM (`ESC [ ? 25 l` hides the cursor) has no public getter; this reads xterm.js's own flag when it is there. */
export function cursorHidden(terminal: XtermTerminal): boolean {
  const core = (terminal as unknown as { _core?: { coreService?: { isCursorHidden?: unknown } } })._core;
  return core?.coreService?.isCursorHidden === true;
}
