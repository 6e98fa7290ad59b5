import type { MonoTypeOperatorFunction } from 'rxjs';
import { tapHandler, type EventHandler } from './tap-handler.js';

/** A chunk of output as an event carries it: a PTY's output event is one. */
export interface OutputChunk {
  readonly text: string;
  /** What `text` was decoded from, when known (see OutputBuffer.append). */
  readonly source?: Uint8Array;
  /** `source` is ASCII and is the text itself (see OutputBuffer.appendAscii): `text` is then never read. */
  readonly ascii?: boolean;
}

/** Where output goes; an `OutputBuffer` is one, and a test can pass anything with these two. */
export interface OutputSink {
  /** `bytes`: what `text` was decoded from, when known (see OutputBuffer.append). */
  append(text: string, bytes?: Uint8Array): void;
  /** ASCII bytes, which are their own text: a string is made from them only if the sink needs one. */
  appendAscii(bytes: Uint8Array): void;
}

/**
 * Appends each event's output to `buffer` and passes every event through unchanged (errors and completion too).
 * `pick` says which events carry output (it returns `undefined` for the others): an ASCII chunk goes in as its
 * bytes, anything else as its text, with the bytes it was decoded from where the event has them.
 * Holds no state, so every subscription appends to the same buffer: subscribe once per PTY.
 *
 * @example
 * ptyEvents$.pipe(
 *   intoBuffer(buffer, (event) => (event.type === 'output' ? event : undefined)),
 *   filter((event) => event.type === 'exit'),
 * );
 */
export function intoBuffer<T>(
  buffer: OutputSink,
  pick: (event: T) => OutputChunk | undefined,
): MonoTypeOperatorFunction<T> {
  return tapHandler(new BufferIngest(buffer, pick));
}

/** A buffer step that is never subscribed, kept alive between PTYs for its class (see sessionShapes in pty-session.ts). */
export function idleBufferIngest<T>(buffer: OutputSink, pick: (event: T) => OutputChunk | undefined): object {
  return new BufferIngest(buffer, pick);
}

/** A class, not a closure: every chunk goes through it (see tapHandler); `pick` too should be defined once. */
class BufferIngest<T> implements EventHandler<T> {
  constructor(
    private readonly buffer: OutputSink,
    private readonly pick: (event: T) => OutputChunk | undefined,
  ) {}

  onEvent(event: T): void {
    const chunk = this.pick(event);
    if (chunk === undefined) return;
    if (chunk.ascii === true && chunk.source !== undefined) {
      if (chunk.source.length > 0) this.buffer.appendAscii(chunk.source);
    } else if (chunk.text !== '') this.buffer.append(chunk.text, chunk.source);
  }
}
