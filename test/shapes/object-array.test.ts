import { setFlagsFromString } from 'node:v8';
import { LineCells } from '../../src/buffer/line-cells.js';
import { LineStore } from '../../src/buffer/line-store.js';
import { RawTail } from '../../src/buffer/raw-tail.js';
import { emptiedForReuse, objectArray } from '../../src/shapes/object-array.js';

// V8's own test of an array's elements kind: available to functions compiled after the flag is set.
setFlagsFromString('--allow-natives-syntax');
const hasObjectElements = new Function('array', 'return %HasObjectElements(array);') as (array: unknown) => boolean;

const field = (owner: object, name: string): unknown => (owner as Record<string, unknown>)[name];

describe('objectArray', () => {
  it('is a new empty array each time, whose elements kind already holds objects (a literal [] does not)', () => {
    const a = objectArray<string>();
    const b = objectArray<string>();
    expect(a).toEqual([]);
    expect(a).not.toBe(b);
    a.push('x');
    expect(b).toEqual([]);
    expect(hasObjectElements(objectArray())).toBe(true);
    expect(hasObjectElements([])).toBe(false);
  });

  it("is what the buffer's arrays of spans and strings start as, so a new PTY's first push keeps their kind", () => {
    const tail = new RawTail(100);
    const store = new LineStore({ maxChars: 100, overhead: 0, pieceChars: 10 });
    const cells = new LineCells(100);
    for (const array of [field(tail, 'chunks'), field(tail, 'modes'), field(store, 'pieces'), field(store, 'open')]) {
      expect(array).toEqual([]);
      expect(hasObjectElements(array)).toBe(true);
    }
    const runs = field(cells, 'runs') as object;
    expect(hasObjectElements(field(runs, 'parts'))).toBe(true);
    // A line that ends leaves its array emptied for the next one, its kind kept.
    const parts = field(runs, 'parts');
    cells.put('a line');
    expect(cells.take()).toBe('a line');
    cells.put('another');
    expect(cells.take()).toBe('another');
    expect(field(runs, 'parts')).toBe(parts);
    expect(parts).toEqual([]);
    expect(hasObjectElements(parts)).toBe(true);
  });
});

describe('emptiedForReuse', () => {
  it('empties a small array in place and hands the same one back', () => {
    const array = objectArray<string>();
    array.push('a', 'b', 'c');
    expect(emptiedForReuse(array)).toBe(array);
    expect(array).toEqual([]);
    expect(hasObjectElements(array)).toBe(true);
  });

  it('lets a large one go (its memory is no longer small) and hands back a new empty one for objects', () => {
    const array = objectArray<string>();
    for (let i = 0; i < 65; i++) array.push(`${i}`);
    const next = emptiedForReuse(array);
    expect(next).not.toBe(array);
    expect(next).toEqual([]);
    expect(hasObjectElements(next)).toBe(true);
    // The one let go is left as it was: whoever held it still sees its parts.
    expect(array).toHaveLength(65);
  });
});
