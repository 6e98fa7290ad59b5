import fc from 'fast-check';
import { StringDecoder } from 'node:string_decoder';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { LineScanner, lineScanner, SCAN_GROUP_LINES } from '../../src/buffer/line-scan.js';
import { LINE_SCAN_WASM_BASE64 } from '../../src/buffer/wasm/line-scan-binary.js';
import { LINE_SCAN_MAX_CHUNK_BYTES } from '../../src/limits.js';

// The generator is plain CommonJS so it runs without a build; its shape, for this test.
const { assembleLineScan } = require('../../scripts/build-line-scan.cjs') as {
  assembleLineScan(): Promise<Buffer>;
};

const scanner = lineScanner as LineScanner;

/** What the module must compute, the slow and obvious way. */
function reference(bytes: Uint8Array, from: number, to: number) {
  let count = 0;
  const ends: number[] = [];
  for (let i = from; i < to; i++) if (bytes[i] === 0x0a && ++count % SCAN_GROUP_LINES === 0) ends.push(i + 1);
  const plain = bytes.every((b) => b === 0x0a || (b >= 0x20 && b <= 0x7e));
  return { count, ends, plain };
}

/** What a search hands grep, joined. */
function searched(buffer: OutputBuffer) {
  const { parts, firstLine } = buffer.searchText();
  return { text: parts.join(''), firstLine };
}

const byteOf = fc.oneof(
  { arbitrary: fc.constant(0x0a), weight: 3 },
  { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 255 }), weight: 1 },
);

describe('LineScanner (WebAssembly)', () => {
  it('loads in Node, SIMD included', () => {
    expect(lineScanner).toBeInstanceOf(LineScanner);
  });

  it('is the module the .wat source assembles to (npm run build:wasm after an edit)', async () => {
    expect((await assembleLineScan()).toString('base64')).toBe(LINE_SCAN_WASM_BASE64);
  });

  it('property: counts lines, finds every 64th line end and tells plain chunks, as a byte loop does', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(byteOf, { maxLength: 3_000 }),
          // Mostly plain: the common chunk, and the only kind whose group ends are used.
          fc.array(fc.oneof(fc.constant(0x0a), fc.integer({ min: 0x20, max: 0x7e })), { maxLength: 3_000 }),
        ),
        fc.nat(),
        fc.nat(),
        (values, a, b) => {
          const bytes = Uint8Array.from(values);
          const from = a % (bytes.length + 1);
          const to = from + (b % (bytes.length - from + 1));
          const expected = reference(bytes, from, to);
          expect(scanner.load(bytes)).toBe(expected.plain);
          const { count, ends } = scanner.groups(from, to);
          expect(count).toBe(expected.count);
          expect([...ends.subarray(0, expected.ends.length)]).toEqual(expected.ends);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('takes no chunk larger than its memory, and scans nothing it was not given', () => {
    expect(scanner.load(new Uint8Array(LINE_SCAN_MAX_CHUNK_BYTES + 1).fill(0x61))).toBe(false);
    expect(() => scanner.groups(0, 1)).toThrow(RangeError);
    expect(scanner.load(Buffer.from('a\nb\n'))).toBe(true);
    expect(() => scanner.groups(0, 5)).toThrow(/no loaded bytes at \[0, 5\)/);
    expect(scanner.groups(0, 4).count).toBe(2);
  });
});

describe('OutputBuffer with and without the native scan', () => {
  const piece = fc.oneof(
    { arbitrary: fc.constantFrom('y\n', 'ok\n', '\n', `${'x'.repeat(79)}\n`, 'no newline yet'), weight: 6 },
    // A lone high surrogate ending a chunk is held for the next one, shifting its offsets by one.
    { arbitrary: fc.constantFrom('\r\n', '\r', '\x1b[31m', '\b', '\t', 'é', '😀', '中\n', '\ud83d'), weight: 1 },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  );

  it('property: the same lines, numbers, search text and stats for any chunks, with their bytes or without', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.array(piece, { maxLength: 200 }),
            // Floods of plain lines, the chunks the native scan is for; lines differ, so a line misplaced shows.
            fc.array(
              fc.oneof(
                fc.nat({ max: 9_999 }).map((n) => `${n}\n`),
                fc.nat({ max: 9_999 }).map((n) => `${'x'.repeat(70)}${n}\n`),
                fc.constantFrom('\n', 'tail'),
              ),
              { minLength: 100, maxLength: 2_000 },
            ),
          ),
          { maxLength: 12 },
        ),
        fc.integer({ min: 200, max: 20_000 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (chunks, maxChars, picks) => {
          const scanned = new OutputBuffer({ maxChars });
          const plain = new OutputBuffer({ maxChars, scanner: null });
          for (const chunk of chunks.map((c) => c.join(''))) {
            // Bytes as a pipe gives them: the text's UTF-8 (the buffer itself decides when they match the text).
            scanned.append(chunk, Buffer.from(chunk, 'utf8'));
            plain.append(chunk);
            expect(scanned.stats()).toEqual(plain.stats());
            expect(searched(scanned)).toEqual(searched(plain));
            expect(scanned.partialLine()).toBe(plain.partialLine());
          }
          expect(scanned.page(0, scanned.retainedLines)).toEqual(plain.page(0, plain.retainedLines));
          // Lines looked up out of order go through the group index the scan built.
          for (const pick of picks) {
            const offset = pick % Math.max(plain.retainedLines, 1);
            expect(scanned.page(offset, 3)).toEqual(plain.page(offset, 3));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a chunk larger than the native scan takes', () => {
  /** Numbered lines, so a line misplaced by one character shows in the pages. */
  const numberedLines = (chars: number): string => {
    let text = '';
    for (let n = 0; text.length < chars; n++) text += `${n} ${'x'.repeat(n % 97)}\n`;
    return text;
  };

  afterEach(() => jest.restoreAllMocks());

  /** Every line looked up on its own (through the group index the scan built), not only read in order. */
  const expectSameLines = (scanned: OutputBuffer, plain: OutputBuffer): void => {
    expect(scanned.stats()).toEqual(plain.stats());
    expect(scanned.page(0, scanned.retainedLines)).toEqual(plain.page(0, plain.retainedLines));
    for (let offset = 0; offset < plain.retainedLines; offset += 5) {
      expect(scanned.page(offset, 1)).toEqual(plain.page(offset, 1));
    }
  };

  it('is scanned natively in parts, with the lines the JS path gives', () => {
    const load = jest.spyOn(scanner, 'load');
    const text = `${numberedLines(2.5 * LINE_SCAN_MAX_CHUNK_BYTES)}tail`;
    const scanned = new OutputBuffer({ maxChars: 4 * LINE_SCAN_MAX_CHUNK_BYTES });
    const plain = new OutputBuffer({ maxChars: 4 * LINE_SCAN_MAX_CHUNK_BYTES, scanner: null });
    scanned.append(text, Buffer.from(text, 'latin1'));
    plain.append(text);
    expect(load.mock.calls.map(([bytes]) => bytes.length)).toEqual([
      LINE_SCAN_MAX_CHUNK_BYTES,
      LINE_SCAN_MAX_CHUNK_BYTES,
      text.length - 2 * LINE_SCAN_MAX_CHUNK_BYTES,
    ]);
    expect(load.mock.results.map((result) => result.value)).toEqual([true, true, true]);
    expectSameLines(scanned, plain);
    expect(scanned.partialLine()).toBe('tail');
    expect(scanned.rawText()).toBe(text);
  });

  it('is not cut when its text is not its bytes, even at equal length', () => {
    // The last chunk ended in a lead byte: the decoder puts a replacement character first (one more character), and
    // a two-byte character further on gives one back. Cut at the same offsets, text and bytes would be one apart.
    const body = numberedLines(1.5 * LINE_SCAN_MAX_CHUNK_BYTES);
    const bytes = Buffer.concat([Buffer.from(body, 'latin1'), Buffer.from('é\nend\n', 'utf8')]);
    const decoder = new StringDecoder('utf8');
    const first = decoder.write(Buffer.from([0x41, 0xc3]));
    const text = decoder.write(bytes);
    expect(text.length).toBe(bytes.length);
    const scanned = new OutputBuffer({ maxChars: 4 * LINE_SCAN_MAX_CHUNK_BYTES });
    const plain = new OutputBuffer({ maxChars: 4 * LINE_SCAN_MAX_CHUNK_BYTES, scanner: null });
    for (const buffer of [scanned, plain]) buffer.append(first, Buffer.from([0x41, 0xc3]));
    scanned.append(text, bytes);
    plain.append(text);
    expectSameLines(scanned, plain);
  });
});
