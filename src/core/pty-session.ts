import { filter, finalize, map, merge, NEVER, Observable, ReplaySubject, SchedulerLike, Subject, takeUntil, tap, timer } from 'rxjs';
import { match } from 'ts-pattern';
import { OutputBuffer } from '../buffer/output-buffer.js';
import { PtyError } from '../errors.js';
import type { Reaper } from '../engine/reaper.js';
import { isCanonicalMode, longestLine } from '../engine/terminal-mode.js';
import { CANONICAL_LINE_MAX_BYTES, EXIT_AFTER_TERMINATION_MARGIN_MS, TERMINATE_TIMEOUT_MS } from '../limits.js';
import { intoBuffer } from '../operators/into-buffer.js';
import { terminateOn } from '../operators/terminate-on.js';
import { ptyProcess$, type PtyEvent, type PtyHandle, type PtySpec } from '../streams/pty-process.js';
import { resizeTerminal } from '../engine/resize-terminal.js';
import { LazyScreen } from '../screen/lazy-screen.js';
import type { TerminalSize } from '../screen/xterm.js';

export type PtyStatus = 'starting' | 'running' | 'exited' | 'killed' | 'timeout';
export type StopReason = 'kill' | 'timeout' | 'owner-deleted' | 'close';

export interface PtyInfo {
  readonly id: string;
  readonly owner: string;
  readonly title: string;
  readonly description: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly workdir: string;
  readonly createdAt: string;
  readonly timeoutSeconds: number | null;
  readonly notifyOnExit: boolean;
}

export interface PtySessionDeps {
  readonly reaper: Reaper;
  /** Emits once when the plugin closes (a ReplaySubject, so a late session still sees it). */
  readonly close$: Observable<unknown>;
  /** Emits the owner id of every deleted session. */
  readonly ownerDeleted$: Observable<string>;
  readonly onExit: (session: PtySession) => void;
  readonly scheduler?: SchedulerLike;
  readonly spawn?: typeof ptyProcess$;
}

/**
 * One PTY's lifecycle: its process stream flows into the bounded buffer; kill, timeout, owner deletion and
 * plugin close are merged into one stop signal whose first reason wins; finalize settles `ended` on every path.
 */
export class PtySession {
  readonly buffer = new OutputBuffer();
  status: PtyStatus = 'starting';
  exitCode: number | null = null;
  /** Node's signal for script itself, or the conventional name inferred from 128+n. */
  signal: string | null = null;
  signalInferred = false;
  /** `script`'s pid: the terminal that holds the program. */
  pid: number | null = null;
  /** The program's own pid: it leads the PTY's session (null if it ended before it was seen). */
  commandPid: number | null = null;
  endedAt: string | null = null;
  readonly ended: Promise<void>;
  /** The screen as a terminal shows it; its emulator is made on first need (see LazyScreen). */
  readonly screen: LazyScreen;
  size: TerminalSize;

  private handle: PtyHandle | undefined;
  private stopReason: StopReason | undefined;
  private readonly kill$ = new Subject<StopReason>();
  /** Stops a stream that has not started yet: there is no handle to terminate, so its teardown must. */
  private readonly abortStart$ = new ReplaySubject<void>(1);
  private pendingLineBytes = 0;
  private resolveEnded!: () => void;
  private startWaiters: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  constructor(
    readonly info: PtyInfo,
    private readonly spec: PtySpec,
    private readonly deps: PtySessionDeps,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.size = { rows: spec.rows, cols: spec.cols };
    this.screen = new LazyScreen(this.buffer, this.size);
  }

  /** Changes the terminal's size while it runs: the program gets SIGWINCH, the emulator takes the new shape. */
  async resize(size: TerminalSize): Promise<void> {
    if (!this.running || this.commandPid === null) {
      throw new PtyError('not_running', `${this.info.id} is ${this.status}; only a running terminal can be resized.`);
    }
    const before = this.size;
    // The emulator first: the output so far was drawn at the old size; the program's redraw comes after SIGWINCH.
    await this.screen.resize(size);
    try {
      await resizeTerminal(this.commandPid, size.rows, size.cols);
    } catch (err) {
      await this.screen.resize(before);
      throw err;
    }
    this.size = size;
  }

  /** Called when the registry drops the PTY: the emulator's memory goes with it. */
  dispose(): void {
    this.screen.dispose();
  }

  get owner(): string {
    return this.info.owner;
  }

  get running(): boolean {
    return this.status === 'starting' || this.status === 'running';
  }

  get lineCount(): number {
    return this.buffer.totalLines;
  }

  /** Subscribes the lifecycle pipeline; resolves once the process runs, rejects if it could not start. */
  start(): Promise<void> {
    const started = new Promise<void>((resolve, reject) => (this.startWaiters = { resolve, reject }));
    const { info, deps } = this;
    const timeout$ =
      info.timeoutSeconds === null
        ? NEVER
        : timer(info.timeoutSeconds * 1_000, deps.scheduler).pipe(map((): StopReason => 'timeout'));
    const stop$ = merge(
      this.kill$,
      timeout$,
      deps.ownerDeleted$.pipe(
        filter((owner) => owner === info.owner),
        map((): StopReason => 'owner-deleted'),
      ),
      deps.close$.pipe(map((): StopReason => 'close')),
    );
    (deps.spawn ?? ptyProcess$)(this.spec, { reaper: deps.reaper })
      .pipe(
        intoBuffer(this.buffer, (e: PtyEvent) => (e.kind === 'output' ? e.text : undefined)),
        tap((event) => this.onEvent(event)),
        terminateOn(stop$, (reason) => this.beginTermination(reason), TERMINATE_TIMEOUT_MS + EXIT_AFTER_TERMINATION_MARGIN_MS, deps.scheduler),
        takeUntil(this.abortStart$),
        finalize(() => this.settle()),
      )
      .subscribe({
        error: (err: unknown) => this.failStart(err),
      });
    return started;
  }

  /** Asks the PTY to end (first reason wins); resolves when it has. Bounded by the termination bound. */
  stop(reason: StopReason): Promise<void> {
    this.kill$.next(reason);
    return this.ended;
  }

  async write(bytes: Buffer): Promise<number> {
    if (!this.running || this.handle === undefined) {
      throw new PtyError('not_running', `${this.info.id} is ${this.status}; it takes no more input. Spawn a new PTY.`);
    }
    const { longest, pendingAfter } = longestLine(this.pendingLineBytes, bytes);
    if (longest > CANONICAL_LINE_MAX_BYTES) {
      const terminal = this.handle.terminal();
      const canonical = terminal === undefined ? undefined : await isCanonicalMode(terminal);
      if (canonical !== false) {
        throw new PtyError(
          'limit',
          `this write makes an input line of ${longest} bytes, but the terminal is in line (canonical) mode, where the kernel silently cuts a line at ${CANONICAL_LINE_MAX_BYTES} bytes. Nothing was written. Send the text in lines of at most ${CANONICAL_LINE_MAX_BYTES} bytes, or write it to a file and have the program read the file.`,
        );
      }
    }
    const written = await this.handle.write(bytes);
    this.pendingLineBytes = pendingAfter;
    return written;
  }

  private onEvent(event: PtyEvent): void {
    match(event)
      .with({ kind: 'started' }, ({ handle }) => {
        this.handle = handle;
        this.pid = handle.pid;
        this.commandPid = handle.sessionId;
        this.status = 'running';
        this.startWaiters?.resolve();
      })
      .with({ kind: 'output' }, () => this.screen.noteOutput())
      .with({ kind: 'exit' }, (exit) => {
        this.exitCode = exit.exitCode;
        this.signal = exit.signal ?? exit.inferredSignal;
        this.signalInferred = exit.signal === null && exit.inferredSignal !== null;
        this.markEnded();
        this.deps.onExit(this);
      })
      .exhaustive();
  }

  /** The final status follows from why it was stopped (first reason), or from nothing when it exited by itself. */
  private markEnded(): void {
    this.status = match(this.stopReason)
      .with(undefined, (): PtyStatus => 'exited')
      .with('timeout', (): PtyStatus => 'timeout')
      .with('kill', 'owner-deleted', 'close', (): PtyStatus => 'killed')
      .exhaustive();
    this.endedAt = new Date().toISOString();
  }

  private beginTermination(reason: StopReason): void {
    if (!this.running) return;
    this.stopReason ??= reason;
    if (this.handle) this.deps.reaper.track(this.handle.terminate());
    else this.abortStart$.next();
  }

  private failStart(err: unknown): void {
    this.startWaiters?.reject(err);
  }

  /** Every ending passes here once: exit, error, hard stop, or start aborted. */
  private settle(): void {
    // Ended without an exit event: never started, or the stream was cut after the termination bound.
    if (this.running) this.markEnded();
    const code = match(this.stopReason)
      .with('owner-deleted', () => 'owner_deleted' as const)
      .with('close', () => 'closing' as const)
      .with(undefined, 'kill', 'timeout', () => 'spawn_failed' as const)
      .exhaustive();
    this.startWaiters?.reject(new PtyError(code, `${this.info.id} ended before it started (${this.stopReason ?? 'start failed'}).`));
    this.resolveEnded();
  }
}
