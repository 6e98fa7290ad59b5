import { CursorMarks } from '../../src/core/cursor-marks.js';
import { MAX_CURSOR_MARKS } from '../../src/limits.js';

const at = (completedLines: number, partial: string) => ({ completedLines, partialTail: () => partial });

describe('CursorMarks', () => {
  it('marks a cursor handed out on an unfinished line that holds something, and remembers what it held', () => {
    const cursors = new CursorMarks();
    expect(cursors.handOut(at(4, 'bash$ '), 5)).toBe('L5.1');
    expect(cursors.markAt('L5.1', 5)).toEqual({ line: 5, partialTail: 'bash$ ' });
  });

  it('gives a plain L<n> for a finished line or an empty unfinished one: all of that line counts', () => {
    const cursors = new CursorMarks();
    expect(cursors.handOut(at(9, 'x'), 3)).toBe('L3');
    expect(cursors.handOut(at(6, ''), 7)).toBe('L7');
    expect(cursors.markAt('L3', 3)).toEqual({ line: 3, partialTail: '' });
    expect(cursors.markAt('L7', 7)).toEqual({ line: 7, partialTail: '' });
  });

  it('keeps what each cursor stood for: a later cursor on the same line does not change an earlier one', () => {
    const cursors = new CursorMarks();
    const spawned = cursors.handOut(at(0, ''), 1);
    const prompt = cursors.handOut(at(0, '>>> '), 1);
    const grown = cursors.handOut(at(0, '>>> 1+'), 1);
    expect([spawned, prompt, grown]).toEqual(['L1', 'L1.1', 'L1.2']);
    expect(cursors.markAt(spawned, 1).partialTail).toBe('');
    expect(cursors.markAt(prompt, 1).partialTail).toBe('>>> ');
    expect(cursors.markAt(grown, 1).partialTail).toBe('>>> 1+');
  });

  it('keeps the newest MAX_CURSOR_MARKS marks; a forgotten one counts all of its line', () => {
    const cursors = new CursorMarks();
    const handed = Array.from({ length: MAX_CURSOR_MARKS + 1 }, (_, k) => cursors.handOut(at(k, `p${k}`), k + 1));
    expect(cursors.markAt(handed[0] as string, 1).partialTail).toBe('');
    expect(cursors.markAt(handed[1] as string, 2).partialTail).toBe('p1');
    // A mark given with another line than its own is not taken for it.
    expect(cursors.markAt(handed[1] as string, 3).partialTail).toBe('');
  });

  it('keeps the screen a cursor was handed out on while a full-screen program shows, on any line', async () => {
    let screen: { screenRows: Promise<readonly string[] | undefined>; rawOffset: number } | undefined;
    const cursors = new CursorMarks(() => screen);
    expect(cursors.handOut(at(2, ''), 3)).toBe('L3');
    screen = { screenRows: Promise.resolve(['~', 'written']), rawOffset: 120 };
    const onScreen = cursors.handOut(at(2, ''), 3);
    expect(onScreen).toBe('L3.1');
    const mark = cursors.markAt(onScreen, 3);
    expect(mark).toMatchObject({ line: 3, partialTail: '', rawOffset: 120 });
    expect(await mark.screenRows).toEqual(['~', 'written']);
    expect(cursors.markAt('L3', 3).screenRows).toBeUndefined();
  });
});
