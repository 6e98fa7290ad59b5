import fc from 'fast-check';
import { partText } from '../../src/buffer/byte-ring.js';
import { CompletedParts } from '../../src/buffer/completed-parts.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';

const texts = (parts: CompletedParts) => parts.parts().map(partText);

describe('CompletedParts, one per scanner, filled again at every chunk', () => {
  it('holds exactly what the last fill gave, however much the one before held', () => {
    const buffer = new OutputBuffer();
    const parts = new CompletedParts();
    buffer.append('one\ntwo\n');
    buffer.append('three\n');
    expect(buffer.completedPartsFrom(1, parts)).toBe(parts);
    expect(texts(parts).join('')).toBe('one\ntwo\nthree\n');
    const before = parts.length;
    expect(before).toBeGreaterThan(0);
    buffer.append('four\n');
    buffer.completedPartsFrom(4, parts);
    expect(texts(parts)).toEqual(['four\n']);
    expect(parts.firstLines()).toEqual([4]);
    expect(parts.length).toBe(1);
    // Nothing finished from line 5 on: the parts are empty, not the last fill's.
    buffer.completedPartsFrom(5, parts);
    expect(parts.length).toBe(0);
    expect(parts.parts()).toEqual([]);
  });

  it('lets go of the parts it held at clear (a string part can be as long as the bound)', () => {
    const parts = new CompletedParts();
    const big = `${'x'.repeat(1000)}\n`;
    parts.add(big, 1);
    parts.add('y\n', 2);
    parts.clear();
    expect(parts.length).toBe(0);
    // The slots it keeps for the next fill no longer refer to what it held.
    const slots = (parts as unknown as { kept: unknown[] }).kept;
    expect(slots).not.toContain(big);
    parts.add('z\n', 3);
    expect(parts.parts()).toEqual(['z\n']);
    expect(parts.firstLines()).toEqual([3]);
  });

  it('property: a reused one and a fresh one read the same lines after every chunk', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-c\n]{0,40}$/), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(40), { minLength: 1, maxLength: 30 }),
        (chunks, froms) => {
          const buffer = new OutputBuffer({ maxChars: 200 });
          const reused = new CompletedParts();
          chunks.forEach((chunk, i) => {
            buffer.append(chunk);
            const from = (froms[i % froms.length] as number) + 1;
            const fresh = buffer.completedPartsFrom(from);
            buffer.completedPartsFrom(from, reused);
            expect(texts(reused)).toEqual(texts(fresh));
            expect(reused.firstLines()).toEqual(fresh.firstLines());
          });
        },
      ),
    );
  });
});
