import type { ChildProcess } from 'node:child_process';
import { Observable, Subscriber } from 'rxjs';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import type { IngestGate } from './ingest-gate.js';
import type { OutputChannel, OutputListener } from './output-channel.js';

export type ChildEvent =
  | { readonly kind: 'stdout'; readonly chunk: Buffer }
  | { readonly kind: 'stderr'; readonly chunk: Buffer }
  /** The process has exited; its pipes may still hold output. */
  | { readonly kind: 'exit' }
  /** The process has exited and every pipe is drained: the last event. */
  | { readonly kind: 'close'; readonly code: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly kind: 'error'; readonly error: Error };

/** The events as the relay makes them, one function per kind: the kept specimens below are made by the same code. */
const stdoutOf = (chunk: Buffer): ChildEvent => ({ kind: 'stdout', chunk });
const stderrOf = (chunk: Buffer): ChildEvent => ({ kind: 'stderr', chunk });
const EXIT_EVENT: ChildEvent = { kind: 'exit' };
const errorOf = (error: Error): ChildEvent => ({ kind: 'error', error });
const closeOf = (code: number | null, signal: NodeJS.Signals | null): ChildEvent => ({ kind: 'close', code, signal });

/**
 * One child event of each kind and field representation, made anew as each child closes (see ShapeKeeper).
 *
 * Why, as for eventShapes (pty-events.ts): OutputFirst's step, which every chunk passes through, also sees a child's
 * close; no close event was alive between two PTYs, so V8 freed its hidden class, and each PTY's close deoptimized
 * the step ("wrong map" at its kind check), which the next flood compiled again (docs/perf-journal.md, twenty-ninth
 * session). The exit code and signal are made both as values and as null, so the class holds either from the start.
 */
export const childEventShapes = new ShapeKeeper((): readonly ChildEvent[] => [
  stdoutOf(Buffer.alloc(0)),
  stderrOf(Buffer.alloc(0)),
  errorOf(new Error('kept')),
  closeOf(0, null),
  closeOf(null, 'SIGKILL'),
]);
childEventShapes.renew();

/**
 * A child process's stdout, stderr, exit, close and error as one stream, in the order Node reports them;
 * completes after `close`. Unsubscribing removes every listener it added.
 *
 * stdout flows while the ingest gate admits its chunks (the turn's budget is not spent); past it, it is paused until
 * the gate grants a share of a later event-loop turn. Flowing freely, libuv reads a ready pipe up to 32 times in
 * a row (64 KiB each), so 16 flooding PTYs held the host's loop ~50 ms per turn (p99 170 ms). Paused, the stream
 * reads at most its highWaterMark ahead and then stops reading (the PTY holds the rest, the command blocks) until
 * the gate resumes it. Order is kept, and `close` still follows the last byte. With no gate (`null`, the default
 * where pausing does not stop the runtime reading the pipe: see pipe-backpressure.ts) stdout always flows.
 *
 * With a `channel` (output-channel.ts), stdout is read from it rather than from `child.stdout` (which is then null),
 * each chunk valid only while its event is delivered, and `close` waits for the channel's end too: the child's close
 * covers only the pipes Node made.
 */
export function childProcessEvents$(
  child: ChildProcess,
  gate: IngestGate | null,
  channel: OutputChannel | null = null,
): Observable<ChildEvent> {
  return new Observable<ChildEvent>((subscriber) => {
    const relay = new ChildEventRelay(child, gate, subscriber, channel);
    relay.listen();
    return () => relay.stop();
  });
}

/**
 * A relay that listens to nothing, kept alive between PTYs for its class (see streamShapes in pty-process.ts); made
 * with a child and a gate as a working relay is, so that its fields hold what a working relay's do.
 */
export function idleRelay(child: ChildProcess, gate: IngestGate | null): object {
  return new ChildEventRelay(child, gate, new Subscriber<ChildEvent>(), null);
}

/**
 * One child's events onto one subscriber. A class whose listeners are its methods, bound once per child, not closures:
 * its stdout listener runs for every chunk, and JavaScriptCore drops the compiled code of a closure none of which is
 * alive any more, so each new PTY compiled it again (see tapHandler).
 */
class ChildEventRelay implements OutputListener {
  private cancelResume: (() => void) | undefined;
  /** A channel whose end has not come yet. */
  private channelOpen: boolean;
  /** False once script has exited: the gate pauses its channel no more (see exit). */
  private pausable = true;
  /** The child's close, held until the channel's end. */
  private heldClose: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** What the gate pauses and resumes: the channel, or else the child's stdout pipe. */
  private readonly flow: { pause(): unknown; resume(): unknown } | null;
  private readonly onStdout = this.chunk.bind(this);
  private readonly onStderr = this.stderr.bind(this);
  private readonly onExit = this.exit.bind(this);
  private readonly onError = this.error.bind(this);
  private readonly onClose = this.close.bind(this);
  private readonly resume = this.resumeStdout.bind(this);

  constructor(
    private readonly child: ChildProcess,
    private readonly gate: IngestGate | null,
    private readonly subscriber: Subscriber<ChildEvent>,
    private readonly channel: OutputChannel | null,
  ) {
    this.channelOpen = channel !== null;
    this.flow = channel ?? child.stdout;
  }

  listen(): void {
    const { child } = this;
    if (this.channel === null) child.stdout?.on('data', this.onStdout);
    else this.channel.listen(this);
    child.stderr?.on('data', this.onStderr);
    child.on('exit', this.onExit);
    child.on('error', this.onError);
    child.on('close', this.onClose);
  }

  stop(): void {
    const { child } = this;
    this.cancelResume?.();
    child.stdout?.off('data', this.onStdout);
    this.channel?.stopListening();
    child.stderr?.off('data', this.onStderr);
    child.off('exit', this.onExit);
    child.off('close', this.onClose);
    // An error after we stopped listening must not become an uncaught exception.
    child.off('error', this.onError);
    child.on('error', ignoreError);
  }

  chunk(chunk: Buffer): void {
    this.subscriber.next(stdoutOf(chunk));
    const { gate } = this;
    if (gate === null || !this.pausable || gate.admit(chunk.length)) return;
    this.flow?.pause();
    this.cancelResume = gate.defer(chunk.length, this.resume);
  }

  end(): void {
    this.channelOpen = false;
    const held = this.heldClose;
    if (held !== undefined) this.close(held.code, held.signal);
  }

  private resumeStdout(): void {
    this.flow?.resume();
  }

  private stderr(chunk: Buffer): void {
    this.subscriber.next(stderrOf(chunk));
  }

  private exit(): void {
    this.subscriber.next(EXIT_EVENT);
    const { channel } = this;
    if (channel === null) return;
    // What script wrote is all in its socket now: read it all, unpaused, then let its end come. Bun 1.3 closes a
    // paused socket whose peer has closed without delivering what it holds (docs/HOSTS.md), so the host keeps a copy
    // of script's end until here, and no pause may follow.
    this.pausable = false;
    this.cancelResume?.();
    channel.resume();
    channel.scriptExited();
  }

  private error(error: Error): void {
    this.subscriber.next(errorOf(error));
  }

  private close(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.channelOpen) {
      this.heldClose = { code, signal };
      return;
    }
    this.cancelResume?.();
    this.subscriber.next(closeOf(code, signal));
    childEventShapes.renew();
    this.subscriber.complete();
  }
}

const ignoreError = (): void => undefined;
