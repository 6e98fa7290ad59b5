import { Writable } from 'node:stream';
import { StdinWriter } from '../../src/engine/stdin-writer.js';

/** A pipe whose reader we control: chunks are only taken when `drain()` is called. */
function slowPipe() {
  const pending: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(_chunk, _enc, cb) {
      pending.push(cb);
    },
  });
  let ended = false;
  stream.on('finish', () => (ended = true));
  return {
    stream,
    drain: () => {
      for (const cb of pending.splice(0)) cb();
    },
    ended: () => ended,
  };
}

describe('StdinWriter', () => {
  it('resolves with the byte count once the pipe took the bytes', async () => {
    const pipe = slowPipe();
    const writer = new StdinWriter(pipe.stream);
    const write = writer.write(Buffer.from('hello'));
    expect(writer.pendingBytes).toBe(5);
    pipe.drain();
    await expect(write).resolves.toBe(5);
    expect(writer.pendingBytes).toBe(0);
  });

  it('refuses, writing nothing, a write that would pass the pending bound', async () => {
    const pipe = slowPipe();
    const writer = new StdinWriter(pipe.stream, { maxPendingBytes: 10 });
    const first = writer.write(Buffer.alloc(8));
    await expect(writer.write(Buffer.alloc(3))).rejects.toMatchObject({
      code: 'busy',
      message: expect.stringContaining('10-byte bound'),
    });
    expect(writer.pendingBytes).toBe(8);
    pipe.drain();
    await first;
    await expect(Promise.all([writer.write(Buffer.alloc(3)), Promise.resolve().then(pipe.drain)])).resolves.toEqual([
      3,
      undefined,
    ]);
  });

  it('gives up waiting after the drain timeout, keeping the bytes queued, and never ends stdin', async () => {
    const pipe = slowPipe();
    const writer = new StdinWriter(pipe.stream, { drainTimeoutMs: 20 });
    await expect(writer.write(Buffer.from('x'))).rejects.toMatchObject({ code: 'timeout' });
    expect(writer.pendingBytes).toBe(1);
    pipe.drain();
    await new Promise((r) => setImmediate(r));
    expect(writer.pendingBytes).toBe(0);
    expect(pipe.ended()).toBe(false);
  });

  it('fails later writes clearly once the pipe broke (the program exited)', async () => {
    const pipe = slowPipe();
    const writer = new StdinWriter(pipe.stream);
    pipe.stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await new Promise((r) => setImmediate(r));
    await expect(writer.write(Buffer.from('x'))).rejects.toMatchObject({
      code: 'not_running',
      message: expect.stringContaining('EPIPE'),
    });
  });
});
