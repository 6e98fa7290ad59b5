import { Specimens } from '../../src/shapes/specimens.js';

describe('Specimens', () => {
  it('keeps the newest `limit` instances and releases each older one, oldest first, as it is pushed out', () => {
    const released: string[] = [];
    const specimens = new Specimens<string>(2, (s) => released.push(s));
    specimens.keep('a');
    specimens.keep('b');
    expect(specimens.specimens).toEqual(['a', 'b']);
    expect(released).toEqual([]);
    specimens.keep('c');
    specimens.keep('d');
    expect(specimens.specimens).toEqual(['c', 'd']);
    expect(released).toEqual(['a', 'b']);
  });

  it('reuses a kept specimen that matches, as the newest again, and finds none once it has been pushed out', () => {
    const released: string[] = [];
    const specimens = new Specimens<string>(3, (s) => released.push(s));
    for (const s of ['a', 'b', 'c']) specimens.keep(s);
    expect(specimens.reuse((s) => s === 'a')).toBe('a');
    expect(specimens.specimens).toEqual(['b', 'c', 'a']);
    expect(specimens.reuse((s) => s === 'x')).toBeUndefined();
    specimens.keep('d');
    expect(released).toEqual(['b']);
    expect(specimens.reuse((s) => s === 'b')).toBeUndefined();
    expect(specimens.specimens).toEqual(['c', 'a', 'd']);
  });
});
