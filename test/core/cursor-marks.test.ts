import { CursorMarks } from '../../src/core/cursor-marks.js';
import { MAX_CURSOR_MARKS } from '../../src/limits.js';

const at = (completedLines: number, partial: string) => ({ completedLines, partialTail: () => partial });

describe('CursorMarks', () => {
  it('remembers the unfinished line as it stood when a cursor was handed out on it', () => {
    const cursors = new CursorMarks();
    expect(cursors.handOut(at(4, 'bash$ '), 5)).toBe('L5');
    expect(cursors.markAt(5)).toEqual({ line: 5, partialTail: 'bash$ ' });
  });

  it('remembers nothing for a cursor on a finished line, or one it never handed out: all of that line counts', () => {
    const cursors = new CursorMarks();
    expect(cursors.handOut(at(9, 'x'), 3)).toBe('L3');
    expect(cursors.markAt(3)).toEqual({ line: 3, partialTail: '' });
    expect(cursors.markAt(7)).toEqual({ line: 7, partialTail: '' });
  });

  it('keeps the newest MAX_CURSOR_MARKS lines only', () => {
    const cursors = new CursorMarks();
    for (let line = 1; line <= MAX_CURSOR_MARKS + 1; line++) cursors.handOut(at(line - 1, `p${line}`), line);
    expect(cursors.markAt(1).partialTail).toBe('');
    expect(cursors.markAt(2).partialTail).toBe('p2');
    expect(cursors.markAt(MAX_CURSOR_MARKS + 1).partialTail).toBe(`p${MAX_CURSOR_MARKS + 1}`);
  });
});
