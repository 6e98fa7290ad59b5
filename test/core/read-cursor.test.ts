import { cursorLine } from '../../src/core/read-cursor.js';
import { ReadArgs } from '../../src/protocol/tool-inputs.js';
import { parseInput } from '../../src/tools/parse-input.js';
import { caught } from '../support/caught.js';

describe('cursorLine', () => {
  const output = { completedLines: 4 };

  it('gives the line of a cursor this output has, up to the next line', () => {
    expect(cursorLine('L1', output)).toBe(1);
    expect(cursorLine('L5', output)).toBe(5);
  });

  it.each(['L6', 'L9007199254740991', 'L9007199254740993', 'L9999999999999999'])(
    'refuses %s past the end, quoted as given, with the range of cursors',
    (cursor) => {
      const { code, message } = caught(() => cursorLine(cursor, output));
      expect(code).toBe('invalid_input');
      expect(message).toBe(
        `cursor: "${cursor}" is past the end of this PTY's output (the next line is 5, so its cursors run from L1 to L5); it belongs to another PTY or was made up. Nothing was read.`,
      );
    },
  );
});

describe('the cursor argument', () => {
  it.each([
    ['12', 'the string "12"'],
    ['L0', 'the string "L0"'],
    ['L12345678901234567', 'the string "L12345678901234567"'],
    [42, '42'],
  ])('refuses %p, saying what was given', (cursor, said) => {
    expect(caught(() => parseInput('pty_read', ReadArgs, { id: 'pty_1a2b3c4d', cursor })).message).toBe(
      `pty_read: invalid input: cursor: must be a cursor from an earlier result, like "L42" (L and a line number from 1), got ${said}. Nothing was done.`,
    );
  });
});
