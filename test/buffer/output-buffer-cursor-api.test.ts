import fc from 'fast-check';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';

/** The buffer methods helpers C, D and E agreed on (see the buffer-api brief); any OutputBuffer must pass these. */
describe('OutputBuffer agreed API: completedLines, partialLine, linesFrom', () => {
  it('counts finished lines only, and numbers the unfinished one completedLines + 1', () => {
    const buffer = new OutputBuffer();
    expect(buffer.completedLines).toBe(0);
    expect(buffer.partialLine()).toBe('');
    buffer.append('one\ntw');
    expect(buffer.completedLines).toBe(1);
    expect(buffer.partialLine()).toBe('tw');
    expect(buffer.linesFrom(buffer.completedLines + 1, 5)).toEqual([{ lineNumber: 2, text: 'tw' }]);
    buffer.append('o\n');
    expect(buffer.completedLines).toBe(2);
    expect(buffer.partialLine()).toBe('');
    expect(buffer.linesFrom(3, 5)).toEqual([]);
  });

  it('renders the unfinished line (a prompt without a newline, a progress bar at its last state)', () => {
    const buffer = new OutputBuffer();
    buffer.append('\x1b[1m>>> \x1b[0m');
    expect(buffer.partialLine()).toBe('>>> ');
    buffer.append('\n10%\r50%');
    expect(buffer.partialLine()).toBe('50%');
    expect(buffer.completedLines).toBe(1);
  });

  it('counts dropped lines too, and starts linesFrom at the oldest retained line when asked for older ones', () => {
    const buffer = new OutputBuffer({ maxChars: 12, lineOverheadChars: 0 });
    buffer.append('aaa\nbbb\nccc\nddd\n');
    expect(buffer.completedLines).toBe(4);
    expect(buffer.firstLine).toBeGreaterThan(1);
    const first = buffer.firstLine;
    expect(buffer.linesFrom(1, 1)).toEqual([{ lineNumber: first, text: ['aaa', 'bbb', 'ccc', 'ddd'][first - 1] }]);
    expect(buffer.linesFrom(4, 10)).toEqual([{ lineNumber: 4, text: 'ddd' }]);
  });

  it('returns at most limit lines, the unfinished line last', () => {
    const buffer = new OutputBuffer();
    buffer.append('1\n2\n3\npart');
    expect(buffer.linesFrom(2, 2)).toEqual([
      { lineNumber: 2, text: '2' },
      { lineNumber: 3, text: '3' },
    ]);
    expect(buffer.linesFrom(2, 10).map((l) => l.text)).toEqual(['2', '3', 'part']);
    expect(buffer.linesFrom(2, 0)).toEqual([]);
  });

  it('agrees with totalLines and tail for any chunking of any text', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z\n]{0,12}$/), { maxLength: 20 }), (chunks) => {
        const buffer = new OutputBuffer();
        for (const chunk of chunks) buffer.append(chunk);
        const partial = buffer.partialLine();
        expect(buffer.totalLines).toBe(buffer.completedLines + (partial === '' ? 0 : 1));
        expect(buffer.linesFrom(1, 1_000)).toEqual(buffer.tail(1_000));
        const text = chunks.join('');
        expect(partial).toBe(text.slice(text.lastIndexOf('\n') + 1));
      }),
    );
  });
});
