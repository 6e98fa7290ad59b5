import fc from 'fast-check';
import { MAX_KEPT_SEARCH_BYTES } from '../../src/limits.js';
import { SearchTextEncoder } from '../../src/search/search-text-encoder.js';
import { memoryOutsideForks } from '../../src/text/memory-outside-forks.js';
import { faultsWritingAgainAfterSpawn } from '../../src/testkit/page-faults.js';

/** Whole lines, each ended by `\n`, as the output buffer hands them: any characters, astral ones included. */
const lines = fc.array(
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((line) => `${line.replace(/\n/g, '')}\n`),
  {
    maxLength: 8,
  },
);

const sameMemory = (a: Buffer, b: Buffer) => a.buffer === b.buffer && a.byteOffset === b.byteOffset;

describe('SearchTextEncoder', () => {
  it('encodes parts to exactly the UTF-8 of their join, search after search in the kept buffer', () => {
    const encoder = new SearchTextEncoder();
    fc.assert(
      fc.property(fc.array(lines, { minLength: 1, maxLength: 4 }), (texts) => {
        for (const parts of texts) {
          const encoded = encoder.encode(parts);
          expect(encoded.bytes.equals(Buffer.from(parts.join(''), 'utf8'))).toBe(true);
          encoded.release();
        }
      }),
    );
  });

  it('encodes a lone surrogate as grep got it from a string: U+FFFD', () => {
    const encoder = new SearchTextEncoder();
    const text = 'a\ud800b\n\udc00\n';
    expect(encoder.encode([text]).bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(encoder.encode(text).bytes.toString('utf8')).toBe('a\ufffdb\n\ufffd\n');
  });

  it('hands the same memory to the next search once the last one released it, and grows it when a text is larger', () => {
    const encoder = new SearchTextEncoder();
    const first = encoder.encode(['one\n', 'two\n']);
    first.release();
    const second = encoder.encode(['three\n']);
    expect(sameMemory(second.bytes, first.bytes)).toBe(true);
    second.release();
    const larger = encoder.encode(['x'.repeat(1_000)]);
    expect(sameMemory(larger.bytes, first.bytes)).toBe(false);
    larger.release();
    // The grown buffer is the kept one now, with room to spare.
    const again = encoder.encode(['y'.repeat(1_100)]);
    expect(sameMemory(again.bytes, larger.bytes)).toBe(true);
    expect(again.bytes.toString()).toBe('y'.repeat(1_100));
  });

  it('gives a search its own memory while the kept buffer is lent, so neither text changes under grep', () => {
    const encoder = new SearchTextEncoder();
    const first = encoder.encode(['first text\n']);
    const second = encoder.encode(['second\n']);
    expect(sameMemory(second.bytes, first.bytes)).toBe(false);
    expect(first.bytes.toString()).toBe('first text\n');
    // Releasing the one-off buffer does not free the kept one.
    second.release();
    const third = encoder.encode(['third\n']);
    expect(sameMemory(third.bytes, first.bytes)).toBe(false);
    expect(first.bytes.toString()).toBe('first text\n');
    first.release();
    // A second release changes nothing: the kept buffer is lent to the next search only.
    const fourth = encoder.encode(['fourth\n']);
    first.release();
    const fifth = encoder.encode(['fifth\n']);
    expect(sameMemory(fifth.bytes, fourth.bytes)).toBe(false);
    expect(fourth.bytes.toString()).toBe('fourth\n');
  });

  it(`keeps nothing larger than its bound (MAX_KEPT_SEARCH_BYTES = ${MAX_KEPT_SEARCH_BYTES})`, () => {
    const encoder = new SearchTextEncoder(64);
    const small = encoder.encode(['a'.repeat(10)]);
    small.release();
    const big = encoder.encode(['é'.repeat(40)]);
    expect(big.bytes.length).toBe(80);
    expect(sameMemory(big.bytes, small.bytes)).toBe(false);
    big.release();
    expect(encoder.keptBytes).toBe(11);
    // A text near the bound grows the kept buffer only to the bound, and the next search still gets it.
    const next = encoder.encode(['b'.repeat(60)]);
    expect(encoder.keptBytes).toBe(64);
    next.release();
    expect(sameMemory(encoder.encode(['c']).bytes, next.bytes)).toBe(true);
  });
});

describe('memoryOutsideForks', () => {
  const PAGES = 256;

  it('is exactly as long as asked', () => {
    expect(memoryOutsideForks(10).length).toBe(10);
    expect(memoryOutsideForks(65_537).length).toBe(65_537);
  });

  it('falls back to ordinary memory where a WebAssembly memory cannot be had', () => {
    const real = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') as PropertyDescriptor;
    const refusing = {
      Memory: class {
        constructor() {
          throw new RangeError('WebAssembly.Memory(): could not allocate memory');
        }
      },
    };
    try {
      Object.defineProperty(globalThis, 'WebAssembly', { value: refusing, configurable: true, writable: true });
      expect(memoryOutsideForks(100).length).toBe(100);
      // A search's encoder keeps working on it.
      expect(new SearchTextEncoder().encode(['a\n', 'b\n']).bytes.toString()).toBe('a\nb\n');
      Object.defineProperty(globalThis, 'WebAssembly', { value: undefined, configurable: true, writable: true });
      expect(memoryOutsideForks(100).length).toBe(100);
    } finally {
      Object.defineProperty(globalThis, 'WebAssembly', real);
    }
  });

  // Node spawns by forking, after which every ordinary page the host writes faults again: a search's kept buffer
  // would take a fault per page at every search (each spawns grep). Counted, not timed: faults are not noise.
  it('takes no copy-on-write fault per page when written again after a spawn, where an ordinary buffer does', async () => {
    const faults = await faultsWritingAgainAfterSpawn(memoryOutsideForks(PAGES * 4096));
    // The control shows the fork's effect on this machine; without it the comparison would say nothing.
    expect(faults.ordinary).toBeGreaterThanOrEqual(PAGES / 2);
    expect(faults.memory).toBeLessThan(PAGES / 8);
  });
});
