import { EMPTY } from 'rxjs';
import {
  asciiOutputEvent,
  eventShapes,
  exitEvent,
  flushedOutputEvent,
  membersEvent,
  outputEvent,
  type PtyEvent,
  startedEvent,
} from '../../src/streams/pty-events.js';
import type { PtyHandle } from '../../src/streams/pty-process.js';
import { NO_MEMBERS } from '../../src/streams/session-report.js';
import { gc, natives, OPTIMIZED } from '../support/v8-natives.js';

const handle = (pid: number): PtyHandle => ({
  pid,
  terminalSid: pid,
  write: () => Promise.resolve(0),
  terminal: () => undefined,
  terminate: () => EMPTY,
});
const chunk = Buffer.from('hello\n');

/** A PTY's events, start to end, made the way pty-process.ts makes them. */
const onePtysEvents = (pid: number, exitCode: number | null): PtyEvent[] => [
  startedEvent(handle(pid)),
  outputEvent('hello\n', chunk),
  asciiOutputEvent(chunk),
  flushedOutputEvent('\uFFFD'),
  exitEvent({ exitCode, signal: null, inferredSignal: null, scriptStderr: '', lingering: NO_MEMBERS }),
  membersEvent({ count: 1, listed: [{ pid: pid + 1, command: 'sleep 9' }] }),
];

/** Enough full collections for V8 to flush the bytecode of code that has not run since (it ages once per one). */
function collectUntilFlushed(): void {
  for (let i = 0; i < 12; i++) gc();
}

type KindCheck = (event: { readonly kind: string }) => string | undefined;

/**
 * What the output path does with every event: PtySession's chunk handler and the buffer's tap check the kind. A
 * function of its own for each test (its own feedback): one that has seen more than four classes checks none.
 */
const freshKindCheck = (): KindCheck =>
  new Function('event', "return event.kind === 'output' ? event.text : undefined") as KindCheck;

/**
 * Runs `check` over one set of `make`'s events until it is optimized; returns nothing that holds them. One set, as
 * in a PTY: its start and exit events are made once, by code that runs too seldom for V8 to keep literal templates.
 */
function optimizeOver(check: KindCheck, make: () => readonly { kind: string }[]): void {
  const events = make();
  natives.prepare(check);
  for (let i = 0; i < 200; i++) for (const event of events) check(event);
  natives.optimizeNext(check);
  for (const event of events) check(event);
  expect(natives.status(check) & OPTIMIZED).toBe(OPTIMIZED);
}

/** Runs a fresh check optimized over `make`'s events, drops them, collects fully, and runs it over a fresh set. */
async function optimizedAcrossCollection(make: () => readonly { kind: string }[]): Promise<number> {
  const check = freshKindCheck();
  // Its own function: an async function's suspended frame would keep the last events (and their classes) alive.
  optimizeOver(check, make);
  // A turn of the loop, so nothing on this stack still holds an event when the collector runs.
  await new Promise((resolve) => setImmediate(resolve));
  collectUntilFlushed();
  for (const event of make()) check(event);
  return natives.status(check) & OPTIMIZED;
}

describe('PTY events', () => {
  it('each kind keeps the hidden class of its specimen, through a full collection and either exit code', () => {
    const [started, output, ascii, flushed, exitNumber, exitNull, members] = eventShapes.instance ?? [
      {},
      {},
      {},
      {},
      {},
      {},
      {},
    ];
    collectUntilFlushed();
    for (const code of [3, null]) {
      const events = onePtysEvents(100, code);
      expect(events.map((e) => e.kind)).toEqual(['started', 'output', 'output', 'output', 'exit', 'members']);
      expect(natives.sameMap(events[0], started)).toBe(true);
      expect(natives.sameMap(events[1], output)).toBe(true);
      expect(natives.sameMap(events[2], ascii)).toBe(true);
      expect(natives.sameMap(events[3], flushed)).toBe(true);
      expect(natives.sameMap(events[4], exitNumber)).toBe(true);
      expect(natives.sameMap(events[4], exitNull)).toBe(true);
      expect(natives.sameMap(events[5], members)).toBe(true);
    }
  });

  it('with the specimens alive, code optimized over one PTY’s events still runs optimized over the next PTY’s', async () => {
    let pid = 1000;
    // Start, a chunk of each kind, exit: four classes, as many as a check stays polymorphic over.
    const startChunkExit = () => {
      const [started, output, ascii, , exit] = onePtysEvents(pid++, pid % 2 === 0 ? 0 : null);
      return [started, output, ascii, exit] as PtyEvent[];
    };
    expect(await optimizedAcrossCollection(startChunkExit)).toBe(OPTIMIZED);
  });

  // The control: a start event of a shape no specimen keeps loses its class at the collection, and with it the code.
  it('without a specimen, the next start event comes with a new class and the code is thrown away (the premise)', async () => {
    let pid = 2000;
    const unkept = () => [{ kind: 'started', unkeptHandle: handle(pid++) }, outputEvent('x', chunk)];
    expect(await optimizedAcrossCollection(unkept)).toBe(0);
  });

  it('renew makes a new set of one event of each kind, holding no PTY', () => {
    const before = eventShapes.instance;
    eventShapes.renew();
    const after = eventShapes.instance ?? [];
    expect(after).not.toBe(before);
    expect(after.map((e) => e.kind)).toEqual(['started', 'output', 'output', 'output', 'exit', 'exit', 'members']);
    const started = after[0];
    expect(started?.kind === 'started' && started.handle.pid).toBe(0);
  });
});
