import { type MonoTypeOperatorFunction, tap } from 'rxjs';

/** Where output goes; an `OutputBuffer` is one, and a test can pass anything with `append`. */
export interface OutputSink {
  /** `bytes`: what `text` was decoded from, when known (see OutputBuffer.append). */
  append(text: string, bytes?: Uint8Array): void;
}

/**
 * Appends each event's output text to `buffer` and passes every event through unchanged (errors and
 * completion too). `pick` says which events carry output; it returns `undefined` for the others. `pickBytes`
 * gives the bytes a text was decoded from, where the event has them.
 * Holds no state, so every subscription appends to the same buffer: subscribe once per PTY.
 *
 * @example
 * ptyEvents$.pipe(
 *   intoBuffer(buffer, (event) => (event.type === 'output' ? event.text : undefined)),
 *   filter((event) => event.type === 'exit'),
 * );
 */
export function intoBuffer<T>(
  buffer: OutputSink,
  pick: (event: T) => string | undefined,
  pickBytes: (event: T) => Uint8Array | undefined = () => undefined,
): MonoTypeOperatorFunction<T> {
  return tap((event) => {
    const text = pick(event);
    if (text !== undefined && text !== '') buffer.append(text, pickBytes(event));
  });
}
