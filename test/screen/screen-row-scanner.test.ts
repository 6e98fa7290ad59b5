import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { PrintedRuns } from '../../src/screen/printed-runs.js';
import { ScreenRowScanner } from '../../src/screen/screen-row-scanner.js';

const pattern = (source: string) => compileLinearPattern('wait.pattern', source);
const COLS = 40;
const nothing = new PrintedRuns('', COLS);
const printed = (raw: string) => new PrintedRuns(raw, COLS);

describe('ScreenRowScanner', () => {
  it('matches rows whose text no row of the last look had, the first from the top', () => {
    const scanner = new ScreenRowScanner(pattern('written|ready'), ['ready', '~', '"a" written']);
    expect(scanner.scan(['ready', '~', '"a" written'], nothing)).toBeUndefined();
    expect(scanner.scan(['ready', 'ready now', '"b" written'], nothing)).toEqual({ screenRow: 1, text: 'ready now' });
  });

  it('takes no row that only scrolled for new: old text moved up is not the answer, what comes below it is', () => {
    const scanner = new ScreenRowScanner(pattern('TARGET|# ?$'), ['line 4', 'TARGET', 'line 6', 'bash#']);
    expect(scanner.scan(['TARGET', 'line 6', 'bash#', 'line 7'], printed('\r\nline 7'))).toBeUndefined();
    // A second prompt below the old one: the text shows once more than it did, and the later row is the new one.
    expect(scanner.scan(['line 6', 'bash#', 'line 7', 'bash#'], nothing)).toEqual({ screenRow: 3, text: 'bash#' });
  });

  it('takes a row printed again with the same text for new (vim shows the same message after the same command)', () => {
    const scanner = new ScreenRowScanner(pattern('E492'), ['text', 'E492: Not an editor command: foo']);
    const again = '\x1b[2;1H\x1b[K\x1b[1m\x1b[37;41mE492: Not an editor command: foo\x1b[0m';
    expect(scanner.scan(['text', 'E492: Not an editor command: foo'], printed(again))).toEqual({
      screenRow: 1,
      text: 'E492: Not an editor command: foo',
    });
  });

  it('counts every row without a baseline (the program was not full-screen when the wait began)', () => {
    expect(new ScreenRowScanner(pattern('^x'), undefined).scan(['a', 'x1'], nothing)).toEqual({
      screenRow: 1,
      text: 'x1',
    });
  });

  it('takes the pattern as given: case, anchors', () => {
    const caseless = new ScreenRowScanner(compileLinearPattern('wait.pattern', 'insert', true), ['']);
    expect(caseless.scan(['-- INSERT --'], nothing)).toEqual({ screenRow: 0, text: '-- INSERT --' });
    expect(new ScreenRowScanner(pattern('^INSERT'), ['']).scan(['-- INSERT --'], nothing)).toBeUndefined();
  });
});

describe('PrintedRuns', () => {
  it('reads runs of text between cursor moves and controls, across colors, and trims each as a row is', () => {
    const runs = printed('\x1b[5;3H  hello \x1b[1mworld\x1b[0m\x1b[6;1Hnext\r\nline\x1b]2;title\x07\x1b7saved\x1b8');
    for (const row of ['hello world', '  hello world  ', 'next', 'line', 'saved']) expect(runs.printed(row)).toBe(true);
    // Not a part of a run, not the title, not an empty row, not two runs joined.
    for (const row of ['hello', 'title', '', '   ', 'nextline', '2;title']) expect(runs.printed(row)).toBe(false);
  });

  it('takes a row filled by a run that wrapped for printed, and only those', () => {
    const long = 'x'.repeat(30) + 'y'.repeat(30);
    const runs = printed(long);
    expect(runs.printed(long.slice(0, COLS))).toBe(true);
    expect(runs.printed(long.slice(COLS))).toBe(true);
    expect(runs.printed('z')).toBe(false);
  });

  it('ends a run at 8-bit CSI and at string controls, and keeps what follows a cut sequence', () => {
    const runs = printed('a\x9b2Kb\x1bPdata\x1b\\c\x1b[');
    for (const row of ['a', 'b', 'c']) expect(runs.printed(row)).toBe(true);
    expect(runs.printed('data')).toBe(false);
  });
});
