import fc from 'fast-check';
import { LineRenderer, type LineRendererOptions } from '../../src/buffer/line-renderer.js';
import { MAX_PENDING_TERMINAL_QUERIES, MAX_TERMINAL_DIMENSION } from '../../src/limits.js';
import { cutAt } from '../support/cut-points.js';

/** Completed lines and the partial line after feeding `chunks` in order. */
function render(chunks: readonly string[], options?: LineRendererOptions): { lines: string[]; partial: string } {
  const renderer = new LineRenderer(options);
  const lines = chunks.flatMap((chunk) => renderer.push(chunk));
  return { lines, partial: renderer.partial() };
}

const lines = (text: string, options?: LineRendererOptions): string[] => render([text], options).lines;

/** Cuts `text` at the given positions (code units, so surrogate pairs and `\r\n` get split too). */
const split = (text: string, cuts: readonly number[]): string[] =>
  cutAt(text.length, cuts, (from, to) => text.slice(from, to));

describe('LineRenderer', () => {
  describe('carriage returns and line ends', () => {
    it('shows only the last state of a progress counter', () => {
      expect(lines('10%\r50%\r100%\n')).toEqual(['100%']);
    });

    it('overwrites in place after a lone \\r, keeping what is not overwritten', () => {
      expect(lines('abcdef\rXY\n')).toEqual(['XYcdef']);
    });

    it('ends a line at \\r\\n and at a bare \\n', () => {
      expect(lines('one\r\ntwo\nthree\r\n')).toEqual(['one', 'two', 'three']);
    });

    it('handles \\r\\n split across chunks', () => {
      expect(render(['abc\r', '\ndef'])).toEqual({ lines: ['abc'], partial: 'def' });
    });

    it('shows a line ending in \\r as it is until the next chunk decides', () => {
      const renderer = new LineRenderer();
      expect(renderer.push('abc\r')).toEqual([]);
      expect(renderer.partial()).toBe('abc');
      expect(renderer.push('X')).toEqual([]);
      expect(renderer.partial()).toBe('Xbc');
      expect(renderer.push('\r\n')).toEqual(['Xbc']);
      expect(renderer.partial()).toBe('');
    });

    it('keeps empty lines', () => {
      expect(lines('a\n\n\r\nb\n')).toEqual(['a', '', '', 'b']);
    });

    it('moves left on backspace but never past column 0', () => {
      expect(lines('abc\b\bX\n')).toEqual(['aXc']);
      expect(lines('\b\b\bab\n')).toEqual(['ab']);
      expect(lines('ab\b\b\b\bc\n')).toEqual(['cb']);
    });

    it('keeps tabs and drops the other C0 controls', () => {
      expect(lines('a\tb\x07c\x00d\x0ee\x7ff\n')).toEqual(['a\tbcdef']);
    });
  });

  describe('escape sequences', () => {
    it('removes colors and styles', () => {
      expect(lines('\x1b[1;31mERROR\x1b[0m: disk \x1b[38;2;255;0;0mfull\x1b[m\n')).toEqual(['ERROR: disk full']);
    });

    it('hands a chunk of lines with tabs to its sink as one run, tabs kept, not a string per line', () => {
      const chunk = '\tfunc main() {\t// entry\n'.repeat(40);
      const runs: string[] = [];
      const single: string[] = [];
      new LineRenderer().render(chunk, {
        line: (text) => single.push(text),
        lines: (input, from, to) => runs.push(input.slice(from, to)),
      });
      expect(single).toEqual([]);
      expect(runs).toEqual([chunk]);
    });

    it('hands a chunk of colored lines to its sink as one run of plain lines, not a string per line', () => {
      const chunk = `${'\x1b[32mPASS\x1b[0m src/a.test.ts \x1b[2m(12 ms)\x1b[0m\r\n'.repeat(50)}\x1b[1mdone`;
      const runs: string[] = [];
      const single: string[] = [];
      const renderer = new LineRenderer();
      renderer.render(chunk, {
        line: (text) => single.push(text),
        lines: (input, from, to) => runs.push(input.slice(from, to)),
      });
      expect(single).toEqual([]);
      expect(runs).toEqual(['PASS src/a.test.ts (12 ms)\n'.repeat(50)]);
      expect(renderer.partial()).toBe('done');
    });

    it('removes a CSI split across chunks at every position', () => {
      const text = 'a\x1b[38;5;196mb\x1b[0mc\n';
      for (let cut = 0; cut <= text.length; cut++) {
        expect(render([text.slice(0, cut), text.slice(cut)]).lines).toEqual(['abc']);
      }
      expect(render(['x\x1b', '[', '3', '1', 'm', 'y\n']).lines).toEqual(['xy']);
    });

    it('removes OSC window titles ended by BEL or by ESC \\', () => {
      expect(lines('\x1b]0;user@host: ~/src\x07$ ls\n')).toEqual(['$ ls']);
      expect(lines('\x1b]2;title\x1b\\ok\n')).toEqual(['ok']);
      expect(lines('\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n')).toEqual(['link']);
    });

    it('removes an OSC split across chunks, terminator included', () => {
      expect(render(['a\x1b]0;ti', 'tle\x1b', '\\b\n']).lines).toEqual(['ab']);
    });

    it('removes DCS, SOS, PM and APC strings', () => {
      expect(lines('a\x1bPq#0;2;0;0;0#0~~@@\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_Gf=100;AAAA\x1b\\e\n')).toEqual([
        'abcde',
      ]);
    });

    it('removes two-byte and charset escapes', () => {
      // ESC 7 / ESC 8 save and restore the cursor: y overwrites the x written between them, as on a terminal.
      expect(lines('\x1b(Bok\x1b)0\x1b7x\x1b8\x1bMy\x1b=\x1b>z\n')).toEqual(['okyz']);
    });

    it('removes the 8-bit C1 forms of CSI, OSC and string controls', () => {
      expect(lines('\x9b31mred\x9b0m \x9d0;title\x07a\x9d0;t2\x9cb\x90dcs\x9cc\x85\n')).toEqual(['red abc']);
    });

    it('removes private-mode and other screen sequences without applying them', () => {
      expect(lines('\x1b[?25l\x1b[2J\x1b[Hscreen\x1b[1A\x1b[?25h\n')).toEqual(['screen']);
    });

    it('applies erase-in-line after \\r, as progress bars use it', () => {
      expect(lines('downloading 50%\r\x1b[Kdone\n')).toEqual(['done']);
      expect(lines('downloading 50%\x1b[2K\rok\n')).toEqual(['ok']);
      expect(lines('abcdef\x1b[3D\x1b[1KX\n')).toEqual(['   Xef']);
    });

    it('applies cursor-to-column and cursor forward/back within the line', () => {
      expect(lines('spinner |\x1b[1Gspinner /\n')).toEqual(['spinner /']);
      expect(lines('a\x1b[3Cb\n')).toEqual(['a   b']);
      expect(lines('abcd\x1b[2DX\n')).toEqual(['abXd']);
      expect(lines('abc\x1b[GZ\n')).toEqual(['Zbc']);
    });

    it('abandons an unterminated sequence past the bound and shows what follows', () => {
      // ESC ] 0 ; and six x's are the 10 chars the sequence may take; the 11th char is text again.
      const options = { maxSequenceChars: 10 };
      expect(lines(`\x1b]0;${'x'.repeat(20)}\nafter\n`, options)).toEqual(['x'.repeat(14), 'after']);
      const endless = render(['\x1b]0;', 'y'.repeat(70_000), '\nvisible\n']);
      expect(endless.lines.at(-1)).toBe('visible');
    });

    it('abandons a color longer than the bound where it runs past it, whole lines of colors or not', () => {
      // ESC [ 3 2 m is 5 chars and fits a bound of 5; in ESC [ 1 2 3 m the m is the 6th, so it is text again.
      const options = { maxSequenceChars: 5 };
      expect(lines('\x1b[32mgreen\n\x1b[123mx\nplain\n', options)).toEqual(['green', 'mx', 'plain']);
      expect(lines('\x1b[1;31mred\n', options)).toEqual(['1mred']);
      expect(lines('\x1b[mno params\n', { maxSequenceChars: 3 })).toEqual(['no params']);
      expect(lines('\x1b[mtoo long\n', { maxSequenceChars: 2 })).toEqual(['mtoo long']);
    });

    it('cancels a sequence on CAN', () => {
      expect(lines('a\x1b[31\x18b\n')).toEqual(['ab']);
    });
  });

  describe('unicode', () => {
    it('keeps a surrogate pair split across chunks', () => {
      expect(render(['a\ud83d', '\ude00b\n']).lines).toEqual(['a😀b']);
      expect(render(['\ud83d', '', '\ude00']).partial).toBe('😀');
      expect(render(['😀\r\ud83d', '\ude00']).partial).toBe('😀');
    });

    it('replaces a lone surrogate instead of emitting broken UTF-16', () => {
      expect(lines('a\udc00b\ud800\n')).toEqual(['a\ufffdb\ufffd']);
    });

    it('blanks the other half of a pair that is overwritten', () => {
      expect(lines('😀x\rA\n')).toEqual(['A x']);
      expect(lines('a😀\rbc\n')).toEqual(['bc ']);
    });
  });

  describe('bounds', () => {
    it('keeps the newest tail of a line longer than the bound', () => {
      expect(render(['0123456789abc\nxyz0123456789'], { maxLineChars: 5 })).toEqual({
        lines: ['89abc'],
        partial: '56789',
      });
    });

    it('reports the partial length without building it', () => {
      const renderer = new LineRenderer({ maxLineChars: 5 });
      renderer.push('abc');
      expect(renderer.partialLength).toBe(3);
      renderer.push('defghij');
      expect(renderer.partialLength).toBe(5);
      expect(renderer.partial()).toBe('fghij');
    });

    it('rewrites a long line in place (cost is measured by npm run bench, not here)', () => {
      const renderer = new LineRenderer();
      renderer.push('#'.repeat(500_000));
      for (let i = 0; i < 50_000; i++) renderer.push(`\r${i % 10}`);
      expect(renderer.partial().slice(0, 3)).toBe('9##');
    });

    it('keeps appending to a rewritten line linear even past the bound', () => {
      const renderer = new LineRenderer({ maxLineChars: 1_000_000 });
      renderer.push(`${'x'.repeat(2_500_000)}\b!`);
      for (let i = 0; i < 100_000; i++) renderer.push('y');
      expect(renderer.partial()).toBe(`${'x'.repeat(899_999)}!${'y'.repeat(100_000)}`);
    });

    it('never pads further than a terminal is wide, whatever the cursor did', () => {
      const renderer = new LineRenderer();
      renderer.push('z'.repeat(500_000));
      for (let i = 0; i < 10_000; i++) renderer.push('\x1b[2Kx');
      expect(renderer.partialLength).toBeLessThanOrEqual(MAX_TERMINAL_DIMENSION + 1);
      renderer.push(`\r\x1b[2K${'\x1b[999999C'.repeat(5)}y`);
      expect(renderer.partial()).toBe(`${' '.repeat(MAX_TERMINAL_DIMENSION)}y`);
      renderer.push('\x1b[99999999G!');
      expect(renderer.partial()).toBe(`${' '.repeat(MAX_TERMINAL_DIMENSION - 1)}!y`);
    });

    it('keeps exactly the newest columns of a line appended in any pieces, cut many times over, never half a pair', () => {
      const text = fc
        .array(fc.constantFrom('a', 'b', '😀', 'xyz'), { minLength: 1, maxLength: 120 })
        .map((parts) => parts.join(''));
      fc.assert(
        fc.property(
          text,
          fc.array(fc.nat(), { maxLength: 40 }),
          fc.integer({ min: 1, max: 9 }),
          (line, at, maxLineChars) => {
            let start = Math.max(line.length - maxLineChars, 0);
            if (/[\udc00-\udfff]/.test(line.charAt(start))) start++;
            expect(render(split(line, at), { maxLineChars }).partial).toBe(line.slice(start));
          },
        ),
        { numRuns: 1_000 },
      );
    });

    it('rejects bounds that are not positive integers', () => {
      expect(() => new LineRenderer({ maxLineChars: 0 })).toThrow(RangeError);
      expect(() => new LineRenderer({ maxSequenceChars: 1.5 })).toThrow(RangeError);
    });
  });

  describe('flush', () => {
    it('completes a non-empty last line and drops an unfinished sequence', () => {
      const renderer = new LineRenderer();
      renderer.push('last\x1b]0;unfinished');
      expect(renderer.flush()).toEqual(['last']);
      expect(renderer.partial()).toBe('');
      expect(renderer.flush()).toEqual([]);
      expect(renderer.push('fresh\n')).toEqual(['fresh']);
    });
  });

  describe('properties', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 3 }),
      fc.constantFrom(
        '\r',
        '\n',
        '\r\n',
        '\b',
        '\t',
        '\x1b',
        '\x1b[',
        '\x1b]',
        '\x1bP',
        '\x1b_',
        '\x1b(',
        '\x07',
        '\x1b\\',
        '\x9b',
        '\x9d',
        '\x9c',
        '\x18',
        '1;31m',
        '0;title',
        '2K',
        'K',
        '3G',
        '2C',
        '4D',
        '?25l',
        '😀',
        '\ud83d',
        '\ude00',
      ),
    );
    const stream = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''));
    const cuts = fc.array(fc.nat(), { maxLength: 12 });
    const bounds = fc.constantFrom<LineRendererOptions>(
      {},
      { maxLineChars: 4, maxSequenceChars: 5 },
      { maxLineChars: 1, maxSequenceChars: 1 },
    );

    it('renders any split of the input exactly as the whole input', () => {
      fc.assert(
        fc.property(stream, cuts, bounds, (text, at, options) => {
          expect(render(split(text, at), options)).toEqual(render([text], options));
        }),
        { numRuns: 2_000 },
      );
    });

    it('renders colored lines (text, SGR sequences, CRLF) as their text with the sequences cut out, however split', () => {
      const text = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀', '[', 'm', '1', ';'), maxLength: 10 });
      const color = fc.constantFrom(
        '\x1b[m',
        '\x1b[0m',
        '\x1b[32m',
        '\x1b[1;31m',
        '\x1b[38;5;196m',
        '\x1b[38:2:1:2:3m',
      );
      const coloredLine = fc
        .tuple(fc.array(fc.oneof(text, color), { maxLength: 8 }), fc.constantFrom('\n', '\r\n'))
        .map(([parts, end]) => parts.join('') + end);
      fc.assert(
        fc.property(fc.array(coloredLine, { maxLength: 30 }), cuts, (coloredLines, at) => {
          // The oracle: a line's text is what is left once the sequences and the CR before its LF are cut out.
          const expected = coloredLines.map((l) => l.replace(/\x1b\[[0-9;:]*m/g, '').replace(/\r?\n$/, ''));
          expect(render(split(coloredLines.join(''), at)).lines).toEqual(expected);
        }),
        { numRuns: 1_000 },
      );
    });

    it('round-trips plain text without control characters, however it is split', () => {
      const plainLine = fc.string({ unit: 'binary' }).map((line) => line.replace(/[\u0000-\u001f\u007f-\u009f]/g, ''));
      fc.assert(
        fc.property(fc.array(plainLine, { minLength: 1 }), cuts, (input, at) => {
          const { lines: completed, partial } = render(split(input.join('\n'), at));
          expect([...completed, partial]).toEqual(input);
        }),
        { numRuns: 1_000 },
      );
    });
  });
});

describe('LineRenderer: the alternate screen, seen at ingest', () => {
  const onAlternateAfter = (...chunks: string[]) => {
    const renderer = new LineRenderer();
    for (const chunk of chunks) renderer.push(chunk);
    return renderer.alternateScreen;
  };

  it('follows DECSET/DECRST 1049, 1047 and 47, in a list too, split across chunks, and in the 8-bit form', () => {
    expect(onAlternateAfter('vim\n\x1b[?1049h')).toBe(true);
    expect(onAlternateAfter('\x1b[?1049h', 'file\n', '\x1b[?1049l')).toBe(false);
    expect(onAlternateAfter('\x1b[?47h')).toBe(true);
    expect(onAlternateAfter('\x1b[?1047h')).toBe(true);
    expect(onAlternateAfter('\x1b[?1;1049h')).toBe(true);
    expect(onAlternateAfter('\x1b[?1049;1h')).toBe(true);
    expect(onAlternateAfter('\x1b[?10', '49h')).toBe(true);
    expect(onAlternateAfter('\x9b?1049h')).toBe(true);
    // A full reset leaves it.
    expect(onAlternateAfter('\x1b[?1049h', 'x', '\x1bc')).toBe(false);
  });

  it('is not fooled by look-alikes: no `?`, another marker, another final, another mode, or a cancelled sequence', () => {
    expect(onAlternateAfter('\x1b[1049h')).toBe(false);
    expect(onAlternateAfter('\x1b[>1049h')).toBe(false);
    expect(onAlternateAfter('\x1b[?1049x')).toBe(false);
    expect(onAlternateAfter('\x1b[?25h\x1b[?1h')).toBe(false);
    expect(onAlternateAfter('\x1b[?10\x1849h')).toBe(false);
    expect(onAlternateAfter('\x1b[?10490h')).toBe(false);
  });
});

describe('LineRenderer: what a full-screen program draws stays out of the lines, as out of a terminal scrollback', () => {
  // A shell prompt, then a program that draws on the alternate screen with every control a line would take, leaves
  // it, and the shell's next output, which goes on where the cursor was before (1049 restores it).
  const SESSION =
    'seq\n$ \x1b[?1049h\x1b[H\x1b[2J~\r\n~\r\n\x1b[3;1Hfile.txt\b\b\x1b[K\x1b7xx\x1b8\tdone\x1b[5G\x1b[2P\x1b[s\x1b[u' +
    '\x1b]2;title\x07\x1b[?1049lback\n$ ';

  it('leaves the drawing out whole and goes on the line where the cursor was before it, as tmux keeps it', () => {
    expect(render([SESSION])).toEqual({ lines: ['seq', '$ back'], partial: '$ ' });
  });

  it('renders the same however the output is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        expect(render(split(SESSION, cuts))).toEqual({ lines: ['seq', '$ back'], partial: '$ ' });
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves out plain lines and colored lines too, by 47, 1047, 1049 and the 8-bit CSI, and a full reset leaves', () => {
    const drawn = `${'plain line\n'.repeat(50)}${'\x1b[32mgreen\x1b[0m\r\n'.repeat(50)}open`;
    for (const [enter, leave] of [
      ['\x1b[?1049h', '\x1b[?1049l'],
      ['\x1b[?1047h', '\x1b[?1047l'],
      ['\x1b[?47h', '\x1b[?47l'],
      ['\x9b?1049h', '\x9b?1049l'],
      ['\x1b[?1;1049h', '\x1bc'],
    ]) {
      expect(render([`before\n${enter}${drawn}`, drawn, `${leave}after\n`])).toEqual({
        lines: ['before', 'after'],
        partial: '',
      });
    }
  });

  it('restores the cursor 1049 saved at each reset, a second one on the normal screen too, as tmux does', () => {
    expect(render(['N1\x1b[?1049hdrawn\x1b[?1049lN2\x1b[?1049lN3\n'])).toEqual({ lines: ['N1N3'], partial: '' });
  });

  it('keeps what a cleared screen showed, as tmux scrolls it into its history: a full reset, an erase of it all', () => {
    expect(render(['P\x1bcafter\n']).lines).toEqual(['P', 'after']);
    expect(render(['Loading...\x1b[H\x1b[2Jdone\n']).lines).toEqual(['Loading...', 'done']);
    // `clear` after a command: the line it stands on is empty, and nothing is added.
    expect(render(['a\n\x1b[H\x1b[2J\x1b[3Jb\n']).lines).toEqual(['a', 'b']);
    expect(render(['x\x1b[3J\n']).lines).toEqual(['x']);
  });

  it('takes the switch back however it is cut, and keeps reading sequences and modes while drawing', () => {
    const renderer = new LineRenderer();
    renderer.push('a\x1b[?1049hx\n\x1b[?10');
    expect(renderer.partial()).toBe('a');
    renderer.push('49l');
    expect(renderer.alternateScreen).toBe(false);
    expect(renderer.push('b\n')).toEqual(['ab']);
    // A mode set while drawing is a mode still (the key modes follow it).
    renderer.push('\x1b[?1049h\x1b[?1h');
    expect(renderer.modes).not.toEqual(new LineRenderer().modes);
  });
});

describe('LineRenderer: whether output was only text, as a screen sees it', () => {
  /** takeOnlyText after each chunk, in order. */
  const onlyTextOf = (...chunks: string[]) => {
    const renderer = new LineRenderer();
    return chunks.map((chunk) => {
      renderer.push(chunk);
      return renderer.takeOnlyText();
    });
  };

  it('takes text, line feeds, a CR right before one, tabs, non-ASCII and SGR (split across chunks too) as text', () => {
    expect(onlyTextOf('plain\nlines\n', 'a partial line')).toEqual([true, true]);
    expect(onlyTextOf('\x1b[32m✓\x1b[0m passed\r\n', 'col\tumn 中文 e\u0301 😀 ───\n')).toEqual([true, true]);
    expect(onlyTextOf('\x1b[1;38;5;208mFAIL\x1b[0m\r\n'.repeat(50))).toEqual([true]);
    expect(onlyTextOf('text \x1b[3', '8:2::1:2:3m', 'more\n')).toEqual([true, true, true]);
    // A `\r` that ends a chunk is judged by what begins the next: its `\n`, or anything else.
    expect(onlyTextOf('line\r', '\nmore\r', 'x')).toEqual([true, true, false]);
  });

  it('takes anything a terminal acts on otherwise as not: moves, modes, titles, resets, controls, broken units', () => {
    const notText = [
      'progress 50%\rprogress 60%',
      'back\bspace',
      'bell\x07',
      '\x1b[5A',
      '\x1b[2J',
      '\x1b[K',
      '\x1b[?25l',
      '\x1b[>4;1m',
      '\x1b[ m',
      '\x1b]2;title\x07',
      '\x1bc',
      '\x1b7',
      '\x1b(0',
      '\x1bP1$r\x1b\\',
      '\x9b31m',
      'next\x85line',
      'lone \ud800 half',
      '\x1b[3\n1m',
    ];
    for (const chunk of notText) expect([chunk, onlyTextOf(chunk)[0]]).toEqual([chunk, false]);
    // An SGR longer than the sequence bound is abandoned midway, its rest read as text: a terminal reads it whole.
    const bounded = new LineRenderer({ maxSequenceChars: 16 });
    bounded.push(`\x1b[${'1;'.repeat(10)}m`);
    expect(bounded.takeOnlyText()).toBe(false);
    // A sequence split across chunks is judged where it ends; the flag starts over after each take.
    expect(onlyTextOf('\x1b[?10', '49h', 'text\n')).toEqual([true, false, true]);
  });
});

describe('LineRenderer, the queries a program sends its terminal', () => {
  it.each([
    ['the cursor position', ['\u001b[6n'], ['cursor']],
    ['device status', ['x\u001b[5ny'], ['status']],
    ['primary attributes, with and without 0', ['\u001b[c', '\u001b[0c'], ['primary-attributes', 'primary-attributes']],
    ['secondary attributes', ['\u001b[>c\u001b[>0c'], ['secondary-attributes', 'secondary-attributes']],
    ['one split across chunks', ['ab\u001b[', '6', 'n'], ['cursor']],
    ['none in a private or other form', ['\u001b[?6n\u001b[>1c\u001b[=c\u001b[1c\u001b[6 n'], []],
  ])('takes %s', (_, chunks, queries) => {
    const renderer = new LineRenderer();
    for (const chunk of chunks) renderer.push(chunk);
    expect(renderer.hasQueries).toBe(queries.length > 0);
    expect(renderer.takeQueries()).toEqual(queries);
    expect(renderer.hasQueries).toBe(false);
  });

  it(`keeps at most ${MAX_PENDING_TERMINAL_QUERIES} until they are taken`, () => {
    const renderer = new LineRenderer();
    renderer.push('\u001b[6n'.repeat(MAX_PENDING_TERMINAL_QUERIES + 5));
    expect(renderer.takeQueries()).toHaveLength(MAX_PENDING_TERMINAL_QUERIES);
  });
});
