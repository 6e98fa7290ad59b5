import { Subscriber } from 'rxjs';
import { MAX_OUTPUT_BEFORE_START_BYTES } from '../../src/limits.js';
import type { ChildEvent } from '../../src/streams/child-process-events.js';
import { type NotOutput, OutputFirst, StartFirst } from '../../src/streams/event-order.js';
import type { PtyEvent } from '../../src/streams/pty-events.js';
import type { PtyHandle } from '../../src/streams/pty-process.js';
import { Utf8Chunks } from '../../src/streams/utf8-chunks.js';

const handle = { pid: 42, terminalSid: 42 } as PtyHandle;

function collecting(): { events: PtyEvent[]; subscriber: Subscriber<PtyEvent> } {
  const events: PtyEvent[] = [];
  return {
    events,
    subscriber: new Subscriber<PtyEvent>({
      next: (e) => {
        events.push(e);
      },
      error: (err: unknown) => {
        throw err;
      },
      complete: () => undefined,
    }),
  };
}

const describeEvent = (e: PtyEvent): string =>
  e.kind === 'output' ? `output:${Buffer.from(e.source ?? []).toString()}` : e.kind;

describe('StartFirst', () => {
  it("keeps held output's bytes and text as they were, though the buffer they were read into is read into again", () => {
    const { events, subscriber } = collecting();
    const order = new StartFirst(subscriber);
    const output = new OutputFirst(order, new Utf8Chunks(), () => undefined);
    // One buffer for every read, as an output channel's (output-channel.ts): each chunk a view of it.
    const reads = Buffer.alloc(16);
    for (const [k, text] of ['first', 'héllo', 'third'].entries()) {
      const bytes = reads.write(text);
      output.next({ kind: 'stdout', chunk: reads.subarray(0, bytes) });
      if (k === 2) reads.fill(0x58);
    }
    order.start(handle);
    expect(events.map((e) => (e.kind === 'output' ? [describeEvent(e), e.text] : e.kind))).toEqual([
      'started',
      ['output:first', 'first'],
      ['output:héllo', 'héllo'],
      ['output:third', 'third'],
    ]);
  });

  it('holds what comes before the start, then sends started first and the held events in their order', () => {
    const { events, subscriber } = collecting();
    const order = new StartFirst(subscriber);
    const output = new OutputFirst(order, new Utf8Chunks(), () => undefined);
    output.next({ kind: 'stdout', chunk: Buffer.from('one') });
    output.next({ kind: 'stdout', chunk: Buffer.from('two') });
    expect(events).toEqual([]);
    expect(order.started).toBe(false);

    order.start(handle);
    output.next({ kind: 'stdout', chunk: Buffer.from('three') });
    expect(order.started).toBe(true);
    expect(events.map(describeEvent)).toEqual(['started', 'output:one', 'output:two', 'output:three']);
    expect(events[0]).toEqual({ kind: 'started', handle });
  });

  it('starts once: a second start (the close after the lookup) sends nothing', () => {
    const { events, subscriber } = collecting();
    const order = new StartFirst(subscriber);
    order.start(handle);
    order.start(handle);
    expect(events.map(describeEvent)).toEqual(['started']);
  });
});

describe('StartFirst, bounded', () => {
  it('past the bound of held output it starts without waiting for the leader, and holds nothing more', () => {
    const { events, subscriber } = collecting();
    let overflows = 0;
    const order: StartFirst = new StartFirst(
      subscriber,
      () => {
        overflows++;
        order.start(handle);
      },
      10,
    );
    const output = new OutputFirst(order, new Utf8Chunks(), () => undefined);
    output.next({ kind: 'stdout', chunk: Buffer.from('012345') });
    output.next({ kind: 'stdout', chunk: Buffer.from('6789') });
    expect(events).toEqual([]);
    output.next({ kind: 'stdout', chunk: Buffer.from('x') });
    expect(overflows).toBe(1);
    expect(events.map(describeEvent)).toEqual(['started', 'output:012345', 'output:6789', 'output:x']);
    // The lookup's answer comes later: the start it asks for has happened.
    order.start(handle);
    output.next({ kind: 'stdout', chunk: Buffer.from('y'.repeat(20)) });
    expect(overflows).toBe(1);
    expect(events.map(describeEvent).slice(4)).toEqual([`output:${'y'.repeat(20)}`]);
  });

  it('by default holds up to MAX_OUTPUT_BEFORE_START_BYTES and starts only past it', () => {
    const { subscriber } = collecting();
    let overflows = 0;
    const order = new StartFirst(subscriber, () => overflows++);
    const output = new OutputFirst(order, new Utf8Chunks(), () => undefined);
    output.next({ kind: 'stdout', chunk: Buffer.alloc(MAX_OUTPUT_BEFORE_START_BYTES, 0x61) });
    expect(overflows).toBe(0);
    output.next({ kind: 'stdout', chunk: Buffer.from('a') });
    expect(overflows).toBe(1);
  });
});

describe('OutputFirst', () => {
  it('decodes stdout across chunks into the order and hands every other event to the rest, as it came', () => {
    const { events, subscriber } = collecting();
    const order = new StartFirst(subscriber);
    order.start(handle);
    const rest: NotOutput[] = [];
    const output = new OutputFirst(order, new Utf8Chunks(), (e) => rest.push(e));
    const euro = Buffer.from('€');
    const sequence: ChildEvent[] = [
      { kind: 'stdout', chunk: euro.subarray(0, 1) },
      { kind: 'stderr', chunk: Buffer.from('warning') },
      { kind: 'stdout', chunk: euro.subarray(1) },
      { kind: 'exit' },
      { kind: 'close', code: 0, signal: null },
    ];
    for (const e of sequence) output.next(e);

    const text = events.flatMap((e) => (e.kind === 'output' ? [e.text] : [])).join('');
    expect(text).toBe('€');
    expect(rest.map((e) => e.kind)).toEqual(['stderr', 'exit', 'close']);
  });
});
