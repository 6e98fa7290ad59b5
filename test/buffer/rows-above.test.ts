import { RowsAbove } from '../../src/buffer/rows-above.js';

/** The rows known above the cursor's, oldest first. */
const known = (rows: RowsAbove): string[] => {
  const texts: string[] = [];
  for (let up = rows.count; up >= 1; up--) texts.push(rows.at(up) ?? '?');
  return texts;
};

describe('RowsAbove: the screen rows above the cursor that the line log can name', () => {
  it('keeps a screen of them at most, one line per row', () => {
    const rows = new RowsAbove(3, 10);
    for (const text of ['a', 'b', 'c', 'd', 'e']) rows.logged(text);
    expect(known(rows)).toEqual(['c', 'd', 'e']);
    expect(rows.at(4)).toBeUndefined();
    expect(rows.at(0)).toBeUndefined();
    // Dropped in batches from the front: a long stream of lines keeps no more than that.
    for (let n = 0; n < 1_000; n++) rows.logged(`l${n}`);
    expect(known(rows)).toEqual(['l997', 'l998', 'l999']);
  });

  it('knows none above a line wider than the screen, which takes rows of its own', () => {
    const rows = new RowsAbove(5, 4);
    rows.logged('ab');
    rows.logged('wider');
    expect(rows.count).toBe(0);
    rows.logged('cd');
    expect(known(rows)).toEqual(['cd']);
  });

  it('takes the last screenful of a run of lines, and none above a wide line in it', () => {
    const rows = new RowsAbove(2, 5);
    // Until the program first moves its cursor up, a run of lines makes the rows above unknown; a run of one line is
    // a line like any other.
    rows.logged('old');
    rows.loggedRun('r\n', 0, 2);
    expect(known(rows)).toEqual(['old', 'r']);
    rows.loggedRun('r\ns\n', 0, 4);
    expect(rows.count).toBe(0);
    rows.trackRuns();
    rows.logged('old');
    rows.loggedRun('x\na\nb\n', 2, 6);
    expect(known(rows)).toEqual(['a', 'b']);
    rows.loggedRun('p\nq\nr\ns\n', 0, 8);
    expect(known(rows)).toEqual(['r', 's']);
    rows.loggedRun('toowide\nok\n', 0, 11);
    expect(known(rows)).toEqual(['ok']);
    // Empty lines count as rows; the run's first line starts at `from`, not at a line feed before it.
    rows.loggedRun('\n\n', 0, 2);
    expect(known(rows)).toEqual(['', '']);
    // Longer than a screenful (2 rows of 5 columns): looked at only when asked, with the same rows.
    const long = 'l1\nl2\nl3\nl4\nl5\n';
    rows.loggedRun(long, 0, long.length);
    expect(known(rows)).toEqual(['l4', 'l5']);
    rows.loggedRun(long, 0, long.length);
    rows.logged('n');
    expect(known(rows)).toEqual(['l5', 'n']);
    rows.loggedRun(`${'w'.repeat(12)}\n`, 0, 13);
    expect(rows.count).toBe(0);
  });

  it('forgets them all on a resize (rows reflow) and when told to', () => {
    const rows = new RowsAbove(5, 10);
    rows.logged('a');
    rows.resize(5, 20);
    expect(rows.count).toBe(0);
    expect(rows.width).toBe(20);
    rows.logged('b');
    rows.forget();
    expect(rows.count).toBe(0);
  });

  it('marks the rows an erase in display blanks: below a row, or above it', () => {
    const rows = new RowsAbove(5, 10);
    for (const text of ['a', 'b', 'c', 'd']) rows.logged(text);
    rows.erase(3, true);
    expect([4, 3, 2, 1].map((up) => rows.erased(up))).toEqual([false, false, true, true]);
    rows.erase(3, false);
    expect(rows.erased(4)).toBe(true);
    expect(rows.erased(3)).toBe(false);
    rows.redrawn(4, 'A');
    expect(rows.erased(4)).toBe(false);
    expect(rows.at(4)).toBe('A');
  });
});
