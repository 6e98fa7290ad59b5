import { getHeapSpaceStatistics } from 'node:v8';
import fc from 'fast-check';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { BUFFER_JOIN_CHARS, MAX_BUFFER_CHARS } from '../../src/limits.js';
import { gc } from '../support/v8-natives.js';

const texts = (buffer: OutputBuffer): string[] => buffer.page(0, buffer.retainedLines).map((line) => line.text);

describe('OutputBuffer: the newest chunks joined into one string (BUFFER_JOIN_CHARS)', () => {
  /** Everything a read can see, in one object: two buffers that hold the same output must agree on all of it. */
  const view = (buffer: OutputBuffer) => ({
    stats: buffer.stats(),
    lines: texts(buffer),
    partial: buffer.partialLine(),
    tails: [1, 100, 2_000].map((limit) => buffer.partialTail(limit)),
    raw: buffer.rawSince(0),
    parts: buffer.completedPartsFrom(0).parts.join(''),
  });

  /** Which field differs (texts of thousands of characters make a full diff, and shrinking, take minutes). */
  const firstDifference = (a: ReturnType<typeof view>, b: ReturnType<typeof view>): string | undefined =>
    (Object.keys(a) as (keyof typeof a)[]).find((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));

  it('reads the same with and without joining, for long runs of lines, one long line, and both mixed', () => {
    // Chunks longer than a line's small runs (1,024), so a long line holds them as they came; made from numbers,
    // which fast-check shrinks quickly (regex-made strings of thousands of characters shrink for minutes).
    const letters = (length: number, from: number) =>
      Array.from({ length }, (_, i) => String.fromCharCode(97 + ((from + i) % 26))).join('');
    const chunk = fc.oneof(
      fc.tuple(fc.integer({ min: 1_100, max: 2_500 }), fc.nat(25)).map(([length, from]) => letters(length, from)),
      fc.tuple(fc.integer({ min: 1_100, max: 2_500 }), fc.integer({ min: 5, max: 90 })).map(([length, every]) =>
        letters(length, 0)
          .replace(new RegExp(`(.{${every}})`, 'g'), '$1\n')
          .slice(0, length),
      ),
      fc.constantFrom('\n', '\r', 'ab\r\ncd\n', 'xyz'),
    );
    fc.assert(
      fc.property(
        fc.array(chunk, { maxLength: 24 }),
        fc.integer({ min: 1, max: 6_000 }),
        fc.integer({ min: 3_000, max: 9_000 }),
        (chunks, joinChars, maxChars) => {
          const joining = new OutputBuffer({ maxChars, maxRawChars: maxChars, joinChars });
          const plain = new OutputBuffer({ maxChars, maxRawChars: maxChars, joinChars: Number.MAX_SAFE_INTEGER });
          for (const text of chunks) {
            // The native scan's path (bytes given) and the JS path take the same decisions: both are joined.
            joining.append(text, Buffer.from(text, 'latin1'));
            plain.append(text, Buffer.from(text, 'latin1'));
            expect(firstDifference(view(joining), view(plain))).toBeUndefined();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps a flood in V8's large-object space, which scavenges never copy (without joining, in small strings)", () => {
    const ascii = Buffer.from(`${'x'.repeat(79)}\n`.repeat(52).slice(0, 4_095), 'latin1');
    const chunk = ascii.toString('latin1');
    const keptInLargeObjects = (joinChars: number): number => {
      const largeObjects = () =>
        getHeapSpaceStatistics()
          .filter((space) => space.space_name.endsWith('large_object_space'))
          .reduce((sum, space) => sum + space.space_used_size, 0);
      gc();
      const before = largeObjects();
      const buffer = new OutputBuffer({ joinChars });
      // 2.5 MB through the default bound of 1,000,000 characters: about 1 MB stays kept.
      for (let i = 0; i < 640; i++) buffer.append(chunk.slice(0), ascii);
      gc();
      const kept = largeObjects() - before;
      expect(buffer.stats().retainedChars).toBeGreaterThan(MAX_BUFFER_CHARS - 5_000);
      return kept;
    };
    expect(keptInLargeObjects(BUFFER_JOIN_CHARS)).toBeGreaterThan(0.8 * MAX_BUFFER_CHARS);
    expect(keptInLargeObjects(Number.MAX_SAFE_INTEGER)).toBeLessThan(0.1 * MAX_BUFFER_CHARS);
  });
});
