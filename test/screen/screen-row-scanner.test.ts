import { compileLinearPattern } from '../../src/patterns/linear-pattern.js';
import { ScreenRowScanner } from '../../src/screen/screen-row-scanner.js';

const pattern = (source: string) => compileLinearPattern('wait.pattern', source);

describe('ScreenRowScanner', () => {
  it('matches only rows that changed since the baseline, the first from the top', () => {
    const scanner = new ScreenRowScanner(pattern('written|ready'), ['ready', '~', '"a" written']);
    expect(scanner.scan(['ready', '~', '"a" written'])).toBeUndefined();
    expect(scanner.scan(['ready', 'ready now', '"b" written'])).toEqual({ screenRow: 1, text: 'ready now' });
  });

  it('counts a row that changed and came back to the baseline text (a second :w in vim shows :w in between)', () => {
    const scanner = new ScreenRowScanner(pattern('written'), ['text', '"a" written']);
    expect(scanner.scan(['text', ':w'])).toBeUndefined();
    expect(scanner.scan(['text', '"a" written'])).toEqual({ screenRow: 1, text: '"a" written' });
  });

  it('counts every row without a baseline (the program was not full-screen when the wait began) or after a resize', () => {
    expect(new ScreenRowScanner(pattern('^x'), undefined).scan(['a', 'x1'])).toEqual({ screenRow: 1, text: 'x1' });
    const resized = new ScreenRowScanner(pattern('^a$'), ['a', 'b']);
    expect(resized.scan(['a', 'b', 'c'])).toEqual({ screenRow: 0, text: 'a' });
  });

  it('takes the pattern as given: case, anchors', () => {
    const caseless = new ScreenRowScanner(compileLinearPattern('wait.pattern', 'insert', true), ['']);
    expect(caseless.scan(['-- INSERT --'])).toEqual({ screenRow: 0, text: '-- INSERT --' });
    expect(new ScreenRowScanner(pattern('^INSERT'), ['']).scan(['-- INSERT --'])).toBeUndefined();
  });
});
