import { GrowableMemory } from '../../src/text/growable-memory.js';
import { faultsWritingAgainAfterSpawn } from '../../src/testkit/page-faults.js';

const PAGE = 65_536;

/** Runs `body` with `globalThis.WebAssembly` replaced (undefined: none at all). */
function withWebAssembly(replacement: unknown, body: () => void): void {
  const real = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') as PropertyDescriptor;
  try {
    Object.defineProperty(globalThis, 'WebAssembly', { value: replacement, configurable: true, writable: true });
    body();
  } finally {
    Object.defineProperty(globalThis, 'WebAssembly', real);
  }
}

/** Grows `memory` in steps to `maxBytes`, writing a pattern as it goes; checks every byte written stays. */
function fillAndGrow(memory: GrowableMemory): number[] {
  const sizes: number[] = [];
  let written = 0;
  while (written < memory.maxBytes) {
    const need = Math.min(memory.maxBytes, written + 10_000);
    const bytes = memory.atLeast(need);
    if (sizes.at(-1) !== bytes.length) sizes.push(bytes.length);
    for (let i = written; i < need; i++) bytes[i] = i % 251;
    written = need;
    const all = memory.bytes;
    for (let i = 0; i < written; i += 997) expect(all[i]).toBe(i % 251);
  }
  return sizes;
}

describe('GrowableMemory', () => {
  it('takes nothing before it is asked, then its first size, doubling up to its most, what was written kept', () => {
    const memory = new GrowableMemory(5 * PAGE + 123, PAGE);
    expect(memory.bytes.length).toBe(0);
    expect(fillAndGrow(memory)).toEqual([PAGE, 2 * PAGE, 4 * PAGE, 5 * PAGE + 123]);
    expect(() => memory.atLeast(5 * PAGE + 124)).toThrow(RangeError);
  });

  it('grows to what is asked when that is more than double', () => {
    const memory = new GrowableMemory(10 * PAGE, PAGE);
    expect(memory.atLeast(10).length).toBe(PAGE);
    expect(memory.atLeast(7 * PAGE).length).toBe(7 * PAGE);
  });

  it('is ordinary memory, copied as it grows, where there is no WebAssembly or it refuses a memory', () => {
    withWebAssembly(undefined, () => expect(fillAndGrow(new GrowableMemory(3 * PAGE, PAGE))).toHaveLength(3));
    const refusing = {
      Memory: class {
        constructor() {
          throw new RangeError('WebAssembly.Memory(): could not allocate memory');
        }
      },
    };
    withWebAssembly(refusing, () => expect(fillAndGrow(new GrowableMemory(3 * PAGE, PAGE))).toHaveLength(3));
  });

  it('goes the ordinary way, keeping its bytes, when a WebAssembly memory refuses to grow', () => {
    let grows = 0;
    const stuck = {
      Memory: class {
        readonly buffer: ArrayBuffer;
        constructor({ initial }: { initial: number }) {
          this.buffer = new ArrayBuffer(initial * PAGE);
        }
        grow(): number {
          grows++;
          throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
        }
      },
    };
    withWebAssembly(stuck, () => expect(fillAndGrow(new GrowableMemory(4 * PAGE, PAGE))).toHaveLength(3));
    // Once ordinary, it stays so: the refusal was asked once.
    expect(grows).toBe(1);
  });

  // Counted, not timed: the memory a PTY's ring grows into must stay out of Node's forks as its whole size did.
  it('takes no copy-on-write fault per page when written again after a spawn, grown or not', async () => {
    const pages = 256;
    const memory = new GrowableMemory(pages * 4096, PAGE);
    memory.atLeast(PAGE).fill(1);
    const faults = await faultsWritingAgainAfterSpawn(memory.atLeast(pages * 4096));
    // The control shows the fork's effect on this machine; without it the comparison would say nothing.
    expect(faults.ordinary).toBeGreaterThanOrEqual(pages / 2);
    expect(faults.memory).toBeLessThan(pages / 8);
  });
});
