import { createTerminal } from '../../src/screen/xterm.js';

/**
 * Every row of an xterm.js terminal (the screen view's emulator) of `rows` × `cols` after `input`, trailing blanks
 * and trailing empty rows trimmed: the oracle the line view's rows are held to.
 */
export function xtermRows(input: string, rows = 40, cols = 80): Promise<string[]> {
  const terminal = createTerminal({ rows, cols });
  return new Promise((resolve) => {
    terminal.write(input, () => {
      const shown: string[] = [];
      for (let y = 0; y < rows; y++)
        shown.push(terminal.buffer.active.getLine(y)?.translateToString(true).trimEnd() ?? '');
      while (shown.at(-1) === '') shown.pop();
      terminal.dispose();
      resolve(shown);
    });
  });
}
