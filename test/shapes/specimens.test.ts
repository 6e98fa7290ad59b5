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
});
