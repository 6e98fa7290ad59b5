import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { ShapeKeeper } from '../../src/shapes/shape-keeper.js';
import { gc, natives, OPTIMIZED } from '../support/v8-natives.js';

// 4 KiB chunks of 80-byte lines, as `script` hands a flood over: the line store cuts and drops lines on every one.
const line = `${'x'.repeat(79)}\n`;
const bytes = Buffer.from(line.repeat(52).slice(0, 4095), 'latin1');
const text = bytes.toString('latin1');
const append = OutputBuffer.prototype.append;

/** A PTY's buffer from start to end: filled past its bound, `append` optimized, then let go (and kept, or not). */
async function oneBuffer(keeper: ShapeKeeper<OutputBuffer> | undefined): Promise<void> {
  let buffer: OutputBuffer | undefined = new OutputBuffer();
  natives.prepare(append);
  for (let i = 0; i < 400; i++) buffer.append(text, bytes);
  natives.optimizeNext(append);
  buffer.append(text, bytes);
  expect(natives.status(append) & OPTIMIZED).toBe(OPTIMIZED);
  keeper?.renew();
  buffer = undefined;
  // A turn of the loop, so nothing on this stack still holds the buffer when the collector runs.
  await new Promise((resolve) => setImmediate(resolve));
}

describe('ShapeKeeper', () => {
  it('keeps the kept instance, made anew at each renew', () => {
    const keeper = new ShapeKeeper(() => ({ made: Symbol('instance') }));
    expect(keeper.instance).toBeUndefined();
    keeper.renew();
    const first = keeper.instance;
    keeper.renew();
    expect(keeper.instance).toBeDefined();
    expect(keeper.instance).not.toBe(first);
  });

  // The control runs first: once a keeper holds a buffer, this module's classes stay alive for good.
  it('without one, a full collection after the last buffer is gone throws away the optimized append (the premise)', async () => {
    await oneBuffer(undefined);
    gc();
    gc();
    expect(natives.status(append) & OPTIMIZED).toBe(0);
  });

  it('with one renewed as the buffer is let go, the optimized append survives the collection', async () => {
    const keeper = new ShapeKeeper(() => new OutputBuffer());
    await oneBuffer(keeper);
    gc();
    gc();
    expect(natives.status(append) & OPTIMIZED).toBe(OPTIMIZED);
    expect(keeper.instance).toBeInstanceOf(OutputBuffer);
  });
});
