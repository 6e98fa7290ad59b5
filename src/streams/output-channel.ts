import { randomBytes, timingSafeEqual } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Observable } from 'rxjs';
import { RUNS_IN_BUN } from '../engine/runtime.js';
import type { WrapperKind } from '../engine/script-invocation.js';
import { MAX_OUTPUT_CHANNEL_STRANGERS, OUTPUT_CHANNEL_SETUP_MS, OUTPUT_READ_BYTES } from '../limits.js';

/** What the host's end sends first, so that the listener knows which connection is its own. */
const TOKEN_BYTES = 32;

/**
 * Whether the runtime hands a child the socket it is given as it is, non-blocking: Bun does, where Node's libuv makes
 * a child's stdio blocking before the exec. `script` writing to a full non-blocking socket sleeps 250 ms on EAGAIN
 * (util-linux's write_all), so there the chain must make it blocking itself (ChainOptions.stdoutTwin).
 */
export const CHILD_SOCKETS_STAY_NONBLOCKING = RUNS_IN_BUN;

/**
 * Whether `script`'s stdout is an OutputChannel or the runtime's own pipe: a channel wherever `script` will block on
 * it, so in Bun only behind the Perl wrapper, which can make it blocking (bash has no fcntl; docs/HOSTS.md).
 */
export const outputViaChannel = (wrapper: WrapperKind): boolean =>
  !CHILD_SOCKETS_STAY_NONBLOCKING || wrapper === 'perl';

/** Who hears a channel's output. */
export interface OutputListener {
  /**
   * A chunk of output: a view of the channel's one buffer, which the next read writes over. Valid only until this
   * returns: what is kept longer must be copied.
   */
  chunk(bytes: Buffer): void;
  /** Nothing more comes: `script`'s end is closed (it exited), or reading failed. Called once. */
  end(): void;
}

const NOBODY: OutputListener = { chunk: () => undefined, end: () => undefined };
const ignoreError = (): void => undefined;

/**
 * A PTY's output path: a connected pair of Unix stream sockets, one end `script`'s stdout, the other read by the
 * host into one buffer of this channel's own, used again for every read (net.Socket's `onread`). A pipe read as a
 * stream costs the host a buffer and a stream event per read: the bare reader took 2.5–3.1 ms of host CPU per MiB
 * that way and 1.7–2.3 through `onread`, side by side on one quiet host (docs/perf-journal.md, thirty-second
 * session). The price is the contract of `OutputListener.chunk`. Bun reads into a buffer of its own instead, still
 * with no stream event: 2.6–3.7 ms against 4.2–5.6 for its pipe read as a stream (docs/HOSTS.md).
 *
 * The pair is made by a listener in Linux's abstract namespace under a random name, open only until its own
 * connection shows the token the host's end sent: any process may connect there, and one that does gets nothing
 * and is closed (see outputChannel$, and docs/TRUST-MODEL.md).
 */
export class OutputChannel {
  private readonly buffer = Buffer.allocUnsafeSlow(OUTPUT_READ_BYTES);
  private listener: OutputListener = NOBODY;
  private ended = false;
  private draining = false;
  /** The host's end. */
  readonly reader: Socket;
  /** `script`'s end, once the listener has it; the host keeps its copy until `script` has exited (scriptExited). */
  private scriptEnd: Socket | undefined;

  constructor(path: string, token: Buffer) {
    this.reader = connect({ path, onread: { buffer: this.buffer, callback: this.read.bind(this) } });
    // A reset or a failed read ends the output as its end would: 'close' follows every error.
    this.reader.on('error', ignoreError);
    this.reader.once('close', this.closed.bind(this));
    // Written, never ended: a half-close would reach the listener's side as an end, and a Node socket that is not
    // half-open answers an end by ending its own side, which is `script`'s stdout (its writes would fail).
    this.reader.write(token);
  }

  /** `script`'s end, for its stdout; undefined once the host's copy is closed. */
  get childEnd(): Socket | undefined {
    return this.scriptEnd;
  }

  /** Both ends still open and nothing ended: a start can hand `script` its end. */
  get usable(): boolean {
    return this.scriptEnd !== undefined && !this.scriptEnd.destroyed && !this.ended && !this.reader.destroyed;
  }

  /**
   * Held as a spare (spare-output-channel.ts): neither socket keeps the host's loop alive meanwhile. In Node; Bun 1.3
   * keeps its loop alive for the accepted one whatever is done to it (docs/HOSTS.md).
   */
  idle(): void {
    this.reader.unref();
    this.scriptEnd?.unref();
  }

  /** Taken for a start: both sockets count as the host's work again. */
  inUse(): void {
    this.reader.ref();
    this.scriptEnd?.ref();
  }

  /** The listener's side of the pair, once it showed the token. */
  pairWith(socket: Socket): void {
    this.scriptEnd = socket;
  }

  /**
   * `script` has exited: the host's copy of its end is closed in the next turn, after a resume has taken effect (a
   * paused socket whose peer closes loses what it holds in Bun), and the reader's end follows once all is read.
   */
  scriptExited(): void {
    setImmediate(() => this.closeChildEnd());
  }

  /** Nobody writes to `script`'s end any more, or nobody ever will: the host's copy is closed. */
  closeChildEnd(): void {
    this.scriptEnd?.destroy();
    this.scriptEnd = undefined;
  }

  /** Every chunk from now on goes to `listener` (and its end, also if it came already). */
  listen(listener: OutputListener): void {
    this.listener = listener;
    if (this.ended) listener.end();
  }

  stopListening(): void {
    this.listener = NOBODY;
  }

  pause(): void {
    this.reader.pause();
  }

  resume(): void {
    this.reader.resume();
  }

  /**
   * Nobody reads any more, but `script` still runs: what it writes is read and dropped (a full socket would block it),
   * and the host's end closes when `script`'s does.
   */
  drain(): void {
    this.draining = true;
    this.listener = NOBODY;
    this.closeChildEnd();
    if (this.ended) this.reader.destroy();
    else this.reader.resume();
  }

  /** Both ends closed now, unless draining (then the host's end closes with `script`'s). */
  release(): void {
    this.closeChildEnd();
    if (!this.draining) this.reader.destroy();
  }

  /**
   * True: go on reading (false would pause the socket; the ingest gate pauses it itself). The bytes are in `into`,
   * not always our buffer: Bun 1.3 reads into a buffer of its own and hands that over (ours stays untouched).
   */
  private read(bytes: number, into: Buffer): boolean {
    // Bun's buffer is the read's own size: handed over as it is, with no view made of it. In JavaScriptCore the first
    // view of a typed array gives it an ArrayBuffer of its own, and over a flood of 2-byte lines (5 KiB reads) the
    // views alone brought 6 of the plugin's 20-odd eden collections per 30 MiB (docs/perf-journal.md, thirty-fourth
    // session).
    this.listener.chunk(bytes === into.length ? into : into.subarray(0, bytes));
    return true;
  }

  private closed(): void {
    this.ended = true;
    this.listener.end();
  }
}

/** Where tests step in: a stranger connects once the listener listens; the host's end is tampered with. */
export interface OutputChannelHooks {
  /** Called once it listens, before the host's end connects. */
  listening?(path: string): void;
  /** Called with the host's end once it is connecting and its token is on its way. */
  connecting?(reader: Socket): void;
}

/**
 * Makes an OutputChannel: listens under a random abstract name, connects the host's end, which sends a random token,
 * and takes the first connection that shows it as `script`'s end. Any other connection (a stranger's) is closed once
 * it shows something else, or when the pair is made; at most MAX_OUTPUT_CHANNEL_STRANGERS wait meanwhile. The
 * listener is closed as soon as the pair is made, or on any failure, or after OUTPUT_CHANNEL_SETUP_MS. Emits the
 * channel and completes; from then on it is the subscriber's to release. Unsubscribed before that, it closes all.
 */
export function outputChannel$(hooks: OutputChannelHooks = {}): Observable<OutputChannel> {
  return new Observable<OutputChannel>((subscriber) => {
    const path = `\0local-pty-output-${randomBytes(16).toString('hex')}`;
    const token = randomBytes(TOKEN_BYTES);
    const strangers = new Set<Socket>();
    let channel: OutputChannel | undefined;
    let handedOver = false;
    const server: Server = createServer({ pauseOnConnect: true });
    const stopListening = () => {
      server.close(ignoreError);
      for (const socket of strangers) socket.destroy();
      strangers.clear();
    };
    const timer = setTimeout(
      () => subscriber.error(new Error(`its output socket was not connected within ${OUTPUT_CHANNEL_SETUP_MS} ms`)),
      OUTPUT_CHANNEL_SETUP_MS,
    );
    timer.unref();
    // As it is: its code (EMFILE, say) says what to do about it (spawn-failed.ts).
    server.on('error', (err: Error) => subscriber.error(err));
    server.on('connection', (socket: Socket) => {
      socket.on('error', ignoreError);
      // Full: the oldest goes. The host's own end shows its token in the first turn after it is accepted, so only a
      // stranger that connects that many times within one turn could push it out (the spawn then fails; nothing
      // leaks). Turning newcomers away instead would let a few silent strangers keep it out for good.
      if (strangers.size >= MAX_OUTPUT_CHANNEL_STRANGERS) {
        const oldest = strangers.values().next().value as Socket;
        strangers.delete(oldest);
        oldest.destroy();
      }
      strangers.add(socket);
      socket.once('close', () => strangers.delete(socket));
      readToken(socket, token, () => {
        if (channel === undefined || subscriber.closed) return;
        strangers.delete(socket);
        channel.pairWith(socket);
        stopListening();
        handedOver = true;
        subscriber.next(channel);
        subscriber.complete();
      });
    });
    const connectHostEnd = () => {
      if (subscriber.closed) return;
      hooks.listening?.(path);
      channel = new OutputChannel(path, token);
      // Refused, or pushed out by strangers before its token was read: no pair can be made any more.
      channel.reader.once('close', () => {
        if (!handedOver) subscriber.error(new Error('its output socket was closed before it was connected'));
      });
      hooks.connecting?.(channel.reader);
    };
    server.listen(path);
    // Both runtimes bind and listen on a Unix socket before listen() returns and call back only later: Bun 1.3 about
    // 1.2 ms later (the pairing took 1.36 ms at the median, 0.32 without the wait; Node: 0.09 ms of it).
    if (server.listening) connectHostEnd();
    else server.once('listening', connectHostEnd);
    return () => {
      clearTimeout(timer);
      stopListening();
      if (!handedOver) channel?.release();
    };
  });
}

/**
 * Calls `matched` once `socket` has sent exactly `token`; closes it once it sent that many bytes that are not. Compared
 * only whole and in constant time: a stranger learns nothing from when it is closed.
 */
function readToken(socket: Socket, token: Buffer, matched: () => void): void {
  let got = Buffer.alloc(0);
  const onData = (data: Buffer) => {
    got = Buffer.concat([got, data]);
    if (got.length < token.length) return;
    socket.off('data', onData);
    socket.pause();
    if (got.length === token.length && timingSafeEqual(got, token)) matched();
    else socket.destroy();
  };
  socket.on('data', onData);
  socket.resume();
}
