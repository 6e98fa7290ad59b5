import { EMPTY } from 'rxjs';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import { asciiText } from '../text/ascii-text.js';
import type { Utf8Chunks } from './utf8-chunks.js';
import type { PtyHandle } from './pty-process.js';
import { type MemberList, NO_MEMBERS } from './session-report.js';

/** What a PTY's stream reports: made only by the factories below, so that their specimens share their shapes. */
export type PtyEvent =
  | { readonly kind: 'started'; readonly handle: PtyHandle }
  | OutputEvent
  | ExitEvent
  /** After `exit`: the lingering members changed; the last one has count 0 (the session is empty). */
  | { readonly kind: 'members'; readonly lingering: MemberList };

export interface OutputEvent {
  readonly kind: 'output';
  readonly text: string;
  readonly bytes: number;
  /**
   * What `text` was decoded from (absent for the decoder's last flush): lets the buffer scan ASCII natively. It may be
   * a view of the buffer the PTY's next read writes over (output-channel.ts): valid only while the event is delivered,
   * as is an ASCII event's `text`, made from it when asked. What keeps an event longer keeps keptOutputEvent's copy.
   */
  readonly source?: Uint8Array;
  /**
   * `source` is ASCII, and `text` is made from it only when asked for: the buffer keeps plain output as bytes and
   * never asks (OutputBuffer.appendAscii).
   */
  readonly ascii: boolean;
}

export interface ExitEvent {
  readonly kind: 'exit';
  readonly exitCode: number | null;
  /** Set only when Node saw `script` itself die by a signal (then the command's status is lost). */
  readonly signal: string | null;
  /** The conventional name for 128+n exit codes: a convention, so always marked as inferred. */
  readonly inferredSignal: string | null;
  /** What `script` itself wrote to stderr (its own errors; the command's stderr is on the PTY). */
  readonly scriptStderr: string;
  /** Members left in the terminal session after the program (its leader) exited. */
  readonly lingering: MemberList;
}

export const startedEvent = (handle: PtyHandle): PtyEvent => ({ kind: 'started', handle });

/** A chunk of `script`'s stdout, decoded. */
export const outputEvent = (text: string, source: Uint8Array): PtyEvent => ({
  kind: 'output',
  text,
  bytes: source.length,
  source,
  ascii: false,
});

/** A chunk of `script`'s stdout that is ASCII (and begins no sequence a decoder carried): its bytes are its text. */
class AsciiOutputEvent implements OutputEvent {
  readonly kind = 'output';
  readonly bytes: number;
  readonly ascii = true;

  constructor(readonly source: Uint8Array) {
    this.bytes = source.length;
  }

  get text(): string {
    return asciiText(this.source);
  }
}

/**
 * An ASCII chunk of `script`'s stdout (see Utf8Chunks.writeUnlessAscii), its text not made: a flood's chunks were
 * each a new string, which the buffer now never keeps (docs/perf-journal.md, seventeenth session).
 */
export const asciiOutputEvent = (source: Uint8Array): PtyEvent => new AsciiOutputEvent(source);

/** A chunk of `script`'s stdout as `decoder` takes it: an ASCII chunk with its text not made, else decoded. */
export function stdoutEvent(decoder: Utf8Chunks, chunk: Buffer): PtyEvent {
  const text = decoder.writeUnlessAscii(chunk);
  return text === undefined ? asciiOutputEvent(chunk) : outputEvent(text, chunk);
}

/**
 * The same output event with bytes of its own. A chunk's bytes may be a view of a buffer that the next read writes over
 * (output-channel.ts): an event kept past its delivery (held until the PTY has started) must not point there.
 */
export function keptOutputEvent(event: OutputEvent): PtyEvent {
  const { source } = event;
  if (source === undefined) return event;
  const own = Buffer.from(source);
  return event.ascii ? asciiOutputEvent(own) : outputEvent(event.text, own);
}

/** What the decoder still held when the stream closed (an incomplete UTF-8 sequence, as replacement characters). */
export const flushedOutputEvent = (text: string): PtyEvent => ({ kind: 'output', text, bytes: 0, ascii: false });

/** Field by field, not spread: the fields' order, and so the event's hidden class, never depends on the caller's. */
export const exitEvent = (fields: Omit<ExitEvent, 'kind'>): PtyEvent => ({
  kind: 'exit',
  exitCode: fields.exitCode,
  signal: fields.signal,
  inferredSignal: fields.inferredSignal,
  scriptStderr: fields.scriptStderr,
  lingering: fields.lingering,
});

export const membersEvent = (lingering: MemberList): PtyEvent => ({ kind: 'members', lingering });

/** A handle with no process behind it: nothing to write to, nothing to end (specimens, replays). */
export const INERT_HANDLE: PtyHandle = {
  pid: 0,
  terminalSid: null,
  write: () => Promise.resolve(0),
  terminal: () => undefined,
  terminate: () => EMPTY,
};

/**
 * One event of each kind and field representation, made anew whenever a PTY is let go (see ShapeKeeper).
 *
 * Why: every function on the output path also sees a PTY's few other events (its start and its exit), so its
 * optimized code checks their hidden classes too. No start or exit event is alive between two PTYs: after a full
 * collection V8 freed their classes, the next PTY's events came with new ones, and each PTY's first event
 * deoptimized the path its flood then compiled again (`--trace-deopt`: "wrong map" at the kind check of
 * PtySession's chunk handler and of the buffer's tap, once per PTY; docs/perf-journal.md, ninth session).
 * The exit code is made both as a number and as null, so the class holds either from the start.
 */
export const eventShapes = new ShapeKeeper((): readonly PtyEvent[] => [
  startedEvent(INERT_HANDLE),
  outputEvent('', new Uint8Array(0)),
  asciiOutputEvent(new Uint8Array(0)),
  flushedOutputEvent(''),
  exitEvent({ exitCode: 0, signal: null, inferredSignal: null, scriptStderr: '', lingering: NO_MEMBERS }),
  exitEvent({ exitCode: null, signal: 'SIGKILL', inferredSignal: null, scriptStderr: '', lingering: NO_MEMBERS }),
  membersEvent(NO_MEMBERS),
]);
eventShapes.renew();
