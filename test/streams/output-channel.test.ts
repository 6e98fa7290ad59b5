import { connect, type Socket } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { MAX_OUTPUT_CHANNEL_STRANGERS, OUTPUT_CHANNEL_SETUP_MS } from '../../src/limits.js';
import { type OutputChannel, type OutputListener, outputChannel$ } from '../../src/streams/output-channel.js';
import { openFdCount } from '../../src/testkit/processes.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(20_000);

/** Hears a channel: copies of its chunks (each is valid only during its call), the buffers they were views of. */
class Heard implements OutputListener {
  readonly chunks: Buffer[] = [];
  readonly buffers = new Set<ArrayBufferLike>();
  ended = 0;

  chunk(bytes: Buffer): void {
    this.chunks.push(Buffer.from(bytes));
    this.buffers.add(bytes.buffer);
  }

  end(): void {
    this.ended++;
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString();
  }

  get bytes(): number {
    return this.chunks.reduce((sum, c) => sum + c.length, 0);
  }
}

/** Whatever any stranger was sent. */
const heardByStrangers: Buffer[] = [];

const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));

/** A socket that connects to `path` and, once connected, sends `sends` (or nothing); `closed` once it is closed. */
function stranger(path: string, sends?: Buffer): Promise<void> {
  const socket = connect({ path });
  const isClosed = closed(socket);
  socket.on('error', () => undefined);
  // Reading, so that it hears the other side close.
  socket.on('data', (d: Buffer) => heardByStrangers.push(d));
  if (sends !== undefined) socket.write(sends);
  return isClosed;
}

/** What script's end writes to (the test writes on it, as script would). */
function childEndOf(channel: OutputChannel): Socket {
  const end = channel.childEnd;
  if (end === undefined) throw new Error('no child end');
  return end;
}

describe('outputChannel$', () => {
  it("pairs the host's end with script's end: what that end writes arrives in order, as views of one buffer", async () => {
    const channel = await firstValueFrom(outputChannel$());
    const heard = new Heard();
    channel.listen(heard);
    const writer = childEndOf(channel);
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i}\n`).join('');
    writer.end(lines);
    await waitFor(() => heard.ended > 0, 'the end');
    expect(heard.text).toBe(lines);
    expect(heard.buffers.size).toBe(1);
    expect(heard.ended).toBe(1);
    channel.release();
  });

  it('a stranger that connects first with a wrong token is closed, and the pair is made with its own end', async () => {
    const strangers: Promise<void>[] = [];
    const channel = await firstValueFrom(
      outputChannel$({ listening: (path) => strangers.push(stranger(path, Buffer.alloc(32, 7)), stranger(path)) }),
    );
    const heard = new Heard();
    channel.listen(heard);
    // Both are closed: the one that showed a wrong token at once, the silent one when the pair was made.
    await Promise.all(strangers);
    heardByStrangers.length = 0;
    childEndOf(channel).end('for the host only');
    await waitFor(() => heard.ended > 0, 'the end');
    expect(heard.text).toBe('for the host only');
    expect(heardByStrangers).toEqual([]);
    channel.release();
  });

  it(`more silent strangers than the ${MAX_OUTPUT_CHANNEL_STRANGERS} kept waiting: all are closed, and the pair is still made`, async () => {
    const strangers: Promise<void>[] = [];
    let listening = '';
    const channel$ = outputChannel$({
      listening: (path) => {
        listening = path;
        for (let i = 0; i < MAX_OUTPUT_CHANNEL_STRANGERS + 3; i++) strangers.push(stranger(path));
      },
    });
    const channel = await firstValueFrom(channel$);
    expect(listening).toMatch(/^\0local-pty-output-[0-9a-f]{32}$/);
    await Promise.all(strangers);
    channel.listen(new Heard());
    channel.release();
  });

  it("fails at once, saying so, when the host's end is closed before the pair is made", async () => {
    const started = Date.now();
    const failed = firstValueFrom(outputChannel$({ connecting: (reader) => reader.destroy() }));
    await expect(failed).rejects.toThrow('its output socket was closed before it was connected');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it(`fails after ${OUTPUT_CHANNEL_SETUP_MS} ms, saying so, when no pair is made`, async () => {
    // A connecting socket writes what it was given once it hears its own 'connect': deaf to it, the host's end never
    // sends its token.
    const failed = firstValueFrom(outputChannel$({ connecting: (reader) => reader.removeAllListeners('connect') }));
    await expect(failed).rejects.toThrow(`its output socket was not connected within ${OUTPUT_CHANNEL_SETUP_MS} ms`);
  });

  it('unsubscribed before the pair is made, or released after, leaves no descriptor open', async () => {
    const before = openFdCount();
    for (let i = 0; i < 40; i++) {
      // A channel handed over (the pair made before the unsubscription) is the subscriber's to release.
      const subscription = outputChannel$().subscribe((channel) => channel.release());
      // Unsubscribed at once, before listening, before the connection is accepted, and later.
      if (i % 4 === 1) await new Promise((resolve) => setImmediate(resolve));
      if (i % 4 >= 2) await sleep(i % 4);
      subscription.unsubscribe();
    }
    for (let i = 0; i < 20; i++) (await firstValueFrom(outputChannel$())).release();
    await waitFor(() => openFdCount() === before || undefined, 'every descriptor closed', 5_000);
  });

  it('as a spare: idle, no end holds the loop open; in use, both do again; usable until an end closes', async () => {
    const pipesHolding = () => process.getActiveResourcesInfo().filter((r) => r === 'PipeWrap').length;
    const spare = await firstValueFrom(outputChannel$());
    const holding = pipesHolding();
    expect(spare.usable).toBe(true);
    spare.idle();
    expect(pipesHolding()).toBe(holding - 2);
    spare.inUse();
    expect(pipesHolding()).toBe(holding);
    childEndOf(spare).destroy();
    expect(spare.usable).toBe(false);
    spare.release();
    const other = await firstValueFrom(outputChannel$());
    other.release();
    expect(other.usable).toBe(false);
  });

  it('draining: what script writes is read and dropped, nothing blocks it, and the host end closes with its end', async () => {
    const before = openFdCount();
    const channel = await firstValueFrom(outputChannel$());
    const heard = new Heard();
    channel.listen(heard);
    channel.pause();
    // The child holds its own copy of script's end; the test keeps the host's open to write on it.
    const writer = channelEndForTest(channel);
    channel.drain();
    const sent = Buffer.alloc(4 * 1_048_576, 'y');
    await new Promise<void>((resolve, reject) => writer.write(sent, (err) => (err ? reject(err) : resolve())));
    writer.end();
    await closed(channel.reader);
    expect(heard.bytes).toBe(0);
    channel.release();
    writer.destroy();
    await waitFor(() => openFdCount() === before || undefined, 'every descriptor closed', 5_000);
  });

  it('paused, it reads nothing and script is held back; resumed, everything arrives', async () => {
    const channel = await firstValueFrom(outputChannel$());
    const heard = new Heard();
    channel.listen(heard);
    channel.pause();
    const writer = childEndOf(channel);
    const sent = Buffer.alloc(8 * 1_048_576, 'z');
    let flushed = false;
    writer.end(sent, () => (flushed = true));
    await sleep(300);
    expect(heard.bytes).toBe(0);
    // The socket holds a few hundred KiB at most: the writer is still waiting with most of its 8 MiB.
    expect(flushed).toBe(false);
    channel.resume();
    await waitFor(() => heard.ended > 0, 'the end');
    expect(heard.bytes).toBe(sent.length);
    channel.release();
  });
});

/**
 * Script's end, kept by the test past drain (which closes the host's copy of it, as a spawn does once the child holds
 * one): a duplicate made before, as the child's is.
 */
function channelEndForTest(channel: OutputChannel): Socket {
  const end = childEndOf(channel);
  // Take it away from the channel: drain then closes nothing the test writes on.
  (channel as unknown as { scriptEnd: Socket | undefined }).scriptEnd = undefined;
  return end;
}
