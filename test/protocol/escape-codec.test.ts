import fc from 'fast-check';
import { MAX_WRITE_BYTES } from '../../src/limits.js';
import { decodeEscapes, formatBytesVisibly } from '../../src/protocol/escape-codec.js';
import { caught } from '../support/caught.js';

const bytes = (...values: number[]) => Buffer.from(values);

describe('decodeEscapes', () => {
  describe('examples', () => {
    it.each([
      ['plain ASCII', 'ls -la', Buffer.from('ls -la')],
      ['\\n \\r \\t', 'a\\nb\\rc\\td', Buffer.from('a\nb\rc\td')],
      ['\\\\ is one backslash', 'C:\\\\dir', Buffer.from('C:\\dir')],
      ['\\\\n is a backslash then n', '\\\\n', Buffer.from('\\n')],
      ['\\xNN is one raw byte, either case', '\\x1b[A\\x03\\x7F', bytes(0x1b, 0x5b, 0x41, 0x03, 0x7f)],
      ['\\xff is the byte 0xFF, not UTF-8 of U+00FF', '\\xff', bytes(0xff)],
      ['\\x00 is a NUL byte', '\\x00', bytes(0x00)],
      ['\\uNNNN is UTF-8', '\\u00e9\\u20AC', Buffer.from('é€')],
      ['\\u0000 is a NUL byte', '\\u0000', bytes(0x00)],
      ['a surrogate pair is one code point', '\\uD83D\\uDE00', Buffer.from('😀')],
      ['real control characters and non-ASCII are UTF-8', 'a\nb\u001b ünï 😀', Buffer.from('a\nb\u001b ünï 😀')],
      ['escapes next to each other', '\\n\\n\\x41\\u0042', Buffer.from('\n\nAB')],
      ['empty data', '', Buffer.alloc(0)],
    ])('%s', (_name, input, expected) => {
      expect(decodeEscapes(input)).toEqual(expected);
    });
  });

  describe('errors', () => {
    it.each([
      ['a trailing lone backslash', 'abc\\', 3, '"\\"'],
      ['\\x with one hex digit', 'ab\\x4', 2, '"\\x4"'],
      ['\\x with a non-hex digit', '\\x4g', 0, '"\\x4g"'],
      ['\\u with three hex digits', 'x\\u123', 1, '"\\u123"'],
      ['\\u with a non-hex digit', '\\u12G4', 0, '"\\u12G4"'],
      ['an unknown escape', 'a\\qb', 1, '"\\q"'],
      ['\\0 (octal escapes are not accepted)', 'a\\0', 1, '"\\0"'],
      ['\\e (not accepted: use \\x1b)', '\\e[0m', 0, '"\\e"'],
      ['a lone high surrogate escape', 'a\\uD83Db', 1, '"\\uD83D"'],
      ['a high surrogate escape followed by a non-surrogate escape', '\\uD83D\\u0041', 0, '"\\uD83D"'],
      ['a lone low surrogate escape', '\\uDE00', 0, '"\\uDE00"'],
      ['a reversed surrogate pair', '\\uDE00\\uD83D', 0, '"\\uDE00"'],
    ])('rejects %s, naming the position, the sequence and the accepted escapes', (_name, input, position, sequence) => {
      const error = caught(() => decodeEscapes(input));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(`at position ${position}`);
      expect(error.message).toContain(sequence);
      expect(error.message).toContain('accepted escapes are \\n, \\r, \\t, \\\\');
      expect(error.message).toContain('\\xNN');
      expect(error.message).toContain('\\uNNNN');
    });

    it('shows a backslash before a real newline without putting the newline into the message', () => {
      const error = caught(() => decodeEscapes('a\\\nb'));
      expect(error.message).toContain('"\\<U+000A>"');
      expect(error.message).not.toContain('\n');
    });

    it('rejects a literal lone surrogate (it has no UTF-8 encoding)', () => {
      const error = caught(() => decodeEscapes('ok \ud800 x'));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain('U+D800 at position 3');
    });

    it('does not combine an escaped half with a literal half', () => {
      expect(caught(() => decodeEscapes('\\uD83D\ude00')).code).toBe('invalid_input');
      expect(caught(() => decodeEscapes('\ud83d\\uDE00')).code).toBe('invalid_input');
    });
  });

  describe('MAX_WRITE_BYTES', () => {
    it('accepts exactly the limit', () => {
      expect(decodeEscapes('a'.repeat(MAX_WRITE_BYTES))).toHaveLength(MAX_WRITE_BYTES);
    });

    it('counts bytes after decoding: a three-byte character counts three', () => {
      const data = '€'.repeat(Math.floor(MAX_WRITE_BYTES / 3) + 1);
      const error = caught(() => decodeEscapes(data));
      expect(error.code).toBe('limit');
      expect(error.message).toContain(`${Buffer.byteLength(data)} bytes`);
      expect(error.message).toContain(`${MAX_WRITE_BYTES} bytes`);
      expect(error.message).toContain('Split it');
    });

    it('counts escapes as the bytes they decode to', () => {
      expect(decodeEscapes('\\x41'.repeat(MAX_WRITE_BYTES))).toHaveLength(MAX_WRITE_BYTES);
      const error = caught(() => decodeEscapes('\\x41'.repeat(MAX_WRITE_BYTES + 1)));
      expect(error.code).toBe('limit');
      expect(error.message).toContain(`${MAX_WRITE_BYTES + 1} bytes`);
    });

    it('refuses data too long to fit whatever it holds without decoding it', () => {
      const error = caught(() => decodeEscapes(`${'\\u0041'.repeat(MAX_WRITE_BYTES)}x`));
      expect(error.code).toBe('limit');
      expect(error.message).toContain(`more than ${MAX_WRITE_BYTES} bytes`);
    });
  });

  describe('properties', () => {
    it('decoding a string without backslashes is its UTF-8 encoding', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (text) => {
          fc.pre(!text.includes('\\'));
          expect(decodeEscapes(text)).toEqual(Buffer.from(text, 'utf8'));
        }),
        { numRuns: 500 },
      );
    });

    it('\\uNNNN of any non-surrogate code unit is its UTF-8 encoding', () => {
      const units = fc.integer({ min: 0, max: 0xffff }).filter((u) => u < 0xd800 || u > 0xdfff);
      fc.assert(
        fc.property(units, fc.boolean(), (unit, upper) => {
          const digits = unit.toString(16).padStart(4, '0');
          const escaped = `\\u${upper ? digits.toUpperCase() : digits}`;
          expect(decodeEscapes(escaped)).toEqual(Buffer.from(String.fromCharCode(unit), 'utf8'));
        }),
      );
    });

    it('a surrogate pair escape of any astral code point is its UTF-8 encoding', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0x10000, max: 0x10ffff }), (codePoint) => {
          const char = String.fromCodePoint(codePoint);
          const escaped = `\\u${char.charCodeAt(0).toString(16)}\\u${char.charCodeAt(1).toString(16)}`;
          expect(decodeEscapes(escaped)).toEqual(Buffer.from(char, 'utf8'));
        }),
      );
    });

    it('\\xNN of any byte is that byte', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0xff }), (byte) => {
          expect(decodeEscapes(`\\x${byte.toString(16).padStart(2, '0')}`)).toEqual(bytes(byte));
        }),
      );
    });
  });
});

describe('formatBytesVisibly', () => {
  it.each([
    ['printable ASCII as is', Buffer.from('ls -la "x" ~'), 'ls -la "x" ~'],
    ['\\n \\r \\t \\\\ as escapes', Buffer.from('a\nb\rc\td\\e'), 'a\\nb\\rc\\td\\\\e'],
    ['other controls and DEL as \\xNN', bytes(0x00, 0x03, 0x1b, 0x5b, 0x41, 0x7f), '\\x00\\x03\\x1B[A\\x7F'],
    ['valid non-ASCII UTF-8 as its characters', Buffer.from('é€😀 ünï'), 'é€😀 ünï'],
    ['invalid UTF-8 as \\xNN', bytes(0xff, 0xc3, 0x41, 0x80), '\\xFF\\xC3A\\x80'],
    ['an overlong encoding as \\xNN', bytes(0xc0, 0xaf), '\\xC0\\xAF'],
    ['an encoded surrogate as \\xNN', bytes(0xed, 0xa0, 0x80), '\\xED\\xA0\\x80'],
    ['a truncated sequence as \\xNN', bytes(0xe2, 0x82), '\\xE2\\x82'],
    ['a code point past U+10FFFF as \\xNN', bytes(0xf4, 0x90, 0x80, 0x80), '\\xF4\\x90\\x80\\x80'],
    ['a C1 control (U+009B, CSI) as \\uNNNN', Buffer.from('\u009b2J'), '\\u009B2J'],
    ['a bidi override as \\uNNNN', Buffer.from('a\u202eb'), 'a\\u202Eb'],
    ['zero-width and no-break spaces as \\uNNNN', Buffer.from('a\u200bb\u00a0c\ufeff'), 'a\\u200Bb\\u00A0c\\uFEFF'],
    ['a combining mark after an escape as \\uNNNN', Buffer.from('\n\u0301'), '\\n\\u0301'],
    ['a combining mark after a letter as is', Buffer.from('e\u0301'), 'e\u0301'],
    ['an astral private-use character as a surrogate pair escape', Buffer.from('\u{F0000}'), '\\uDB80\\uDC00'],
  ])('renders %s', (_name, input, expected) => {
    expect(formatBytesVisibly(input)).toBe(expected);
    expect(decodeEscapes(expected)).toEqual(input);
  });

  const byteArrays = fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    // Mostly valid UTF-8 with stray bytes spliced in: random bytes alone rarely form multi-byte characters.
    fc
      .array(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 8 }).map((s) => Buffer.from(s, 'utf8')),
          fc.uint8Array({ maxLength: 3 }).map((a) => Buffer.from(a)),
        ),
      )
      .map((parts) => Buffer.concat(parts)),
  );

  it('round-trips: decodeEscapes(formatBytesVisibly(b)) equals b for every byte buffer', () => {
    fc.assert(
      fc.property(byteArrays, (raw) => {
        const buf = Buffer.from(raw);
        expect(decodeEscapes(formatBytesVisibly(buf))).toEqual(buf);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never lets a control character, format character or separator through', () => {
    fc.assert(
      fc.property(byteArrays, (raw) => {
        expect(formatBytesVisibly(Buffer.from(raw))).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
      }),
      { numRuns: 2_000 },
    );
  });
});
