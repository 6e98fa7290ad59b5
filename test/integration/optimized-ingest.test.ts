/**
 * A PTY's flood must find the ingest path still optimized after the PTYs before it ended and the collector ran. V8
 * throws away a function's optimized code once a hidden class that code checks has no live object left at a full
 * collection, so a class on the path whose objects live only as long as a PTY, a wait or a call (a match expression,
 * a wait's scanner, a child's close event) made every flood compile the path again (docs/perf-journal.md, seventh,
 * ninth, twenty-fourth and twenty-ninth sessions). Real floods through the real plugin, used as an agent uses it
 * during one: a pattern wait pending, the screen read now and then.
 */
import { gc, natives, OPTIMIZED } from '../support/v8-natives.js';
import { V1HostFixture } from '../../src/testkit/fake-v1-host.js';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { PtySession } from '../../src/core/pty-session.js';
import { handlerSubscriberShapes } from '../../src/operators/tap-handler.js';
import { OutputScanner } from '../../src/patterns/output-scanner.js';
import { OutputFirst, StartFirst } from '../../src/streams/event-order.js';
import { stdoutEvent } from '../../src/streams/pty-events.js';
import { streamShapes } from '../../src/streams/pty-process.js';
import { ChunkSubscriber } from '../../src/operators/chunk-subscriber.js';
import { QuietClock } from '../../src/operators/quiet-clock.js';
import { LazyScreen } from '../../src/screen/lazy-screen.js';
import { Multicast } from '../../src/streams/multicast.js';
import { OutputChannel } from '../../src/streams/output-channel.js';

jest.setTimeout(60_000);

const OWNER = 'ses_flood';
/** 80-byte lines, 16 MB: thousands of chunks, as `script` hands them over in 4 KiB reads. */
const FLOOD = `yes ${'x'.repeat(78)} | head -c 16000000`;
const SCREEN_READ_EVERY_MS = 50;
const SURVIVAL_ROUNDS = 3;
/** Floods with the path marked for optimization until its entry runs optimized (see the test). */
const PREMISE_ATTEMPTS = 3;

async function call(host: V1HostFixture, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const outcome = await host.callTool(tool, args, { sessionID: OWNER });
  if (!outcome.ok) throw new Error(`${tool}: ${outcome.message}`);
  return outcome.value;
}

/** One PTY's flood with a wait pending that only its exit ends and the screen read meanwhile; then it is removed. */
async function flood(host: V1HostFixture): Promise<void> {
  const { id } = (await call(host, 'pty_spawn', {
    command: 'bash',
    args: ['-c', FLOOD],
    description: 'flood',
  })) as { id: string };
  let ended = false;
  const wait = call(host, 'pty_read', { id, limit: 1, wait: { pattern: 'never-printed-[0-9]{3}', timeoutMs: 50_000 } });
  void wait.finally(() => (ended = true)).catch(() => undefined);
  while (!ended) {
    await call(host, 'pty_read', { id, screen: true });
    await new Promise((resolve) => setTimeout(resolve, SCREEN_READ_EVERY_MS));
  }
  expect(await wait).toMatchObject({ reason: 'exit' });
  await call(host, 'pty_kill', { id, cleanup: true });
}

// What every chunk of a flood runs, from the child's stdout to the pending wait's scan. V8 inlines much of it into
// its callers, so which of these it optimizes on their own varies: the test holds every one it did.
// The relay and the tap are classes of their modules' own; a kept specimen (there once a PTY has ended) gives them.
const hotPath = (): ReadonlyArray<readonly [string, unknown]> => [
  ['OutputChannel.read', (OutputChannel.prototype as unknown as Record<string, unknown>).read],
  ['ChildEventRelay.chunk', prototypeOf(streamShapes.instance?.[0]).chunk],
  ['OutputFirst.next', OutputFirst.prototype.next],
  ['StartFirst.emit', StartFirst.prototype.emit],
  ['stdoutEvent', stdoutEvent],
  ['HandlerSubscriber.onValue', prototypeOf(handlerSubscriberShapes.instance).onValue],
  ['ChunkSubscriber._next', (ChunkSubscriber.prototype as unknown as Record<string, unknown>)._next],
  ['PtySession.onEvent', PtySession.prototype.onEvent],
  ['OutputBuffer.appendAscii', OutputBuffer.prototype.appendAscii],
  ['LazyScreen.noteOutput', LazyScreen.prototype.noteOutput],
  ['Multicast.next', Multicast.prototype.next],
  ['OutputScanner.scan', OutputScanner.prototype.scan],
  ['QuietClock.note', QuietClock.prototype.note],
];

function prototypeOf(specimen: object | undefined): Record<string, unknown> {
  if (specimen === undefined) throw new Error('no specimen kept yet: a PTY has to end first');
  return Object.getPrototypeOf(specimen) as Record<string, unknown>;
}

const optimized = (f: unknown): boolean => (natives.status(f) & OPTIMIZED) === OPTIMIZED;

describe('the ingest path after PTYs have come and gone', () => {
  let host: V1HostFixture;

  beforeAll(async () => {
    host = await V1HostFixture.create({ defaultMessages: [] });
  });

  afterAll(async () => {
    await host.close();
    host.cleanup();
  });

  it('stays optimized through full collections once the PTYs, their waits and their reads are gone', async () => {
    // Deterministic tiering: each function is optimized at its first call in the last flood, with what the floods
    // before taught V8 (every kind of event included), not whenever V8's counters and its compiler thread get to it.
    await flood(host);
    const path = hotPath();
    for (const [, f] of path) natives.prepare(f);
    await flood(host);
    gc();
    const optimizedNow = () => path.filter(([, f]) => optimized(f)).map(([name]) => name);
    const entryOptimized = () =>
      ['OutputChannel.read', 'OutputFirst.next'].every((name) => optimizedNow().includes(name));
    // Under load a flood can take a branch the floods before it never took (more chunks in a turn, a gate pause): V8
    // then drops the code once for lack of feedback ("Insufficient type feedback", seen in --trace-deopt), and the
    // next flood, with that feedback, runs optimized. Feedback, not a class that died: so a bounded few more floods.
    for (let attempt = 0; attempt < PREMISE_ATTEMPTS && (attempt === 0 || !entryOptimized()); attempt++) {
      for (const [, f] of path) natives.optimizeNext(f);
      await flood(host);
    }
    // What V8 optimized on its own (the rest it inlined into these); the premise: the path is optimized from its entry.
    expect(optimizedNow()).toEqual(expect.arrayContaining(['OutputChannel.read', 'OutputFirst.next']));
    // Whether a class died with the last PTY depends on what else is alive when the collector runs: a few rounds.
    for (let round = 0; round < SURVIVAL_ROUNDS; round++) {
      if (round > 0) await flood(host);
      const before = optimizedNow();
      // A turn of the loop, so nothing on this stack still holds what the last PTY used.
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      gc();
      expect({ round, optimized: optimizedNow() }).toEqual({ round, optimized: before });
    }
  });
});
