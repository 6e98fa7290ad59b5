import fc from 'fast-check';
import { OffsetRing } from '../../src/buffer/offset-ring.js';

const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('push' as const), step: fc.integer({ min: 0, max: 5_000 }) }) },
  // Long strides, so values climb past the base's reach while the ring holds entries, and jumps past 32 bits.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('push' as const), step: fc.constant(2 ** 26 + 3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('push' as const), step: fc.constant(2 ** 31 + 7) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), count: fc.integer({ min: 0, max: 200 }) }) },
);

function readAll(ring: OffsetRing): number[] {
  return Array.from({ length: ring.size }, (_, i) => ring.at(i));
}

describe('OffsetRing', () => {
  it('holds what an array holds through growth, shrinking and values far past 32 bits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.array(step, { maxLength: 400 }), (start, steps) => {
        const ring = new OffsetRing();
        const model: number[] = [];
        let value = start;
        for (const s of steps) {
          if (s.kind === 'push') {
            value += s.step;
            // As an owner does: what the ring holds stays within 2^30 of each new value.
            while (model.length > 0 && value - (model[0] as number) >= 2 ** 30) {
              ring.drop(1);
              model.shift();
            }
            ring.push(value);
            model.push(value);
          } else {
            const count = Math.min(s.count, model.length);
            ring.drop(count);
            model.splice(0, count);
          }
          expect(ring.size).toBe(model.length);
          if (model.length > 0) {
            expect(ring.at(0)).toBe(model[0]);
            expect(ring.at(model.length - 1)).toBe(model[model.length - 1]);
          }
        }
        expect(readAll(ring)).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });

  it('takes no memory until its first push, and none back after emptying below its first size', () => {
    const ring = new OffsetRing();
    const held = () => (ring as unknown as { items: Int32Array }).items.length;
    expect(held()).toBe(0);
    ring.drop(0);
    expect(held()).toBe(0);
    ring.push(7);
    expect(held()).toBe(64);
    ring.push(9);
    ring.drop(2);
    ring.push(11);
    expect(readAll(ring)).toEqual([11]);
    expect(held()).toBe(64);
  });

  it('moves its base to the oldest entry when values climb by more than 2^30 while it holds them', () => {
    const ring = new OffsetRing();
    const start = 2 ** 40;
    const stride = 2 ** 24;
    const held: number[] = [];
    // The last 10 are kept: their spread stays small while the values climb 200 × 2^24 > 2^31 past the first base.
    for (let i = 0; i < 200; i++) {
      ring.push(start + i * stride);
      held.push(start + i * stride);
      if (ring.size > 10) {
        ring.drop(1);
        held.shift();
      }
      expect(readAll(ring)).toEqual(held);
    }
  });

  it('refuses a value 2^30 or more from the oldest entry it holds, changing nothing', () => {
    const ring = new OffsetRing();
    ring.push(100);
    ring.push(200);
    expect(() => ring.push(100 + 2 ** 30)).toThrow(/2\^30 or more from the oldest entry it holds \(100\)/);
    expect(readAll(ring)).toEqual([100, 200]);
  });

  it('keeps its entries in order through growing to 1,024 and shrinking back', () => {
    const ring = new OffsetRing();
    for (let i = 0; i < 1_000; i++) ring.push(i * 3);
    ring.drop(990);
    ring.push(5_000);
    expect(readAll(ring)).toEqual([...Array.from({ length: 10 }, (_, i) => (990 + i) * 3), 5_000]);
  });
});
