import {
  filter,
  finalize,
  firstValueFrom,
  map,
  merge,
  NEVER,
  type Observable,
  ReplaySubject,
  type SchedulerLike,
  Subject,
  switchMap,
  takeUntil,
  timer,
} from 'rxjs';
import { match } from 'ts-pattern';
import { OutputBuffer } from '../buffer/output-buffer.js';
import { PtyError } from '../errors.js';
import { Reaper } from '../engine/reaper.js';
import { isCanonicalMode, longestLine } from '../engine/terminal-mode.js';
import { TerminalAnswers } from './terminal-answers.js';
import { CursorMarks } from './cursor-marks.js';
import { screenRowsNow } from './screen-wait.js';
import { CANONICAL_LINE_MAX_BYTES, EXIT_AFTER_TERMINATION_MARGIN_MS, MAX_ANSWER_WAIT_MS } from '../limits.js';
import { idleBufferIngest, intoBuffer } from '../operators/into-buffer.js';
import { handlerSubscriberShapes, tapHandler, type EventHandler } from '../operators/tap-handler.js';
import { Multicast } from '../streams/multicast.js';
import { eventShapes, type PtyEvent } from '../streams/pty-events.js';
import { ptyProcess$, type PtyHandle, type PtyProcessDeps, type PtySpec } from '../streams/pty-process.js';
import { type MemberList, NO_MEMBERS, type TerminationReport } from '../streams/session-report.js';
import type { PtyActivity } from '../operators/wait-for.js';
import { resizeTerminal } from '../engine/resize-terminal.js';
import { LazyScreen } from '../screen/lazy-screen.js';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import { matchShapes } from '../shapes/match-shapes.js';
import type { TerminalSize } from '../screen/xterm.js';

import type { PtyStatus } from '../protocol/tool-results.js';

export type { PtyStatus };
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
  /** The output sockets starts take (PtyProcessDeps.outputChannels). */
  readonly outputChannels?: PtyProcessDeps['outputChannels'];
}

/** One object for every chunk's activity event: it carries nothing but its kind. */
const OUTPUT_ACTIVITY: PtyActivity = { kind: 'output' };

/** What of an event goes into the buffer. Defined once, not per PTY: every chunk calls it (see tapHandler). */
const outputOf = (event: PtyEvent) => (event.kind === 'output' ? event : undefined);

/** One empty buffer, made anew whenever a PTY's buffer is let go: see ShapeKeeper. Exported for tests. */
export const bufferShapes = new ShapeKeeper(() => new OutputBuffer());

/** What ending a PTY achieved: `survivors.count` 0 means its whole terminal session is gone. */
export interface StopOutcome {
  readonly survivors: MemberList;
}

/**
 * One PTY's lifecycle, until its whole terminal session is empty: its process stream flows into the bounded
 * buffer; kill, timeout, owner deletion and plugin close are merged into one stop signal whose first reason wins
 * (for the status), and each of them sweeps the session; finalize settles `ended` on every path.
 */
export class PtySession implements EventHandler<PtyEvent> {
  readonly buffer: OutputBuffer;
  /** The cursors handed out for this PTY's output (see CursorMarks). */
  readonly cursors = new CursorMarks(() =>
    this.screen.alternateScreenActive()
      ? { screenRows: screenRowsNow(this.screen), rawOffset: this.buffer.totalRawChars }
      : undefined,
  );
  status: PtyStatus = 'starting';
  exitCode: number | null = null;
  /** Node's signal for script itself, or the conventional name inferred from 128+n. */
  signal: string | null = null;
  signalInferred = false;
  /** `script`'s pid: the terminal that holds the program. */
  pid: number | null = null;
  /**
   * The terminal's Unix session id: the program's own pid, which leads it (null until it is seen, or if it ended
   * before it was: a PTY whose output came first may start before its leader is known).
   */
  get terminalSid(): number | null {
    return this.handle?.terminalSid ?? null;
  }
  /**
   * Members of the terminal session left after the program exited, or that survived a stop's sweep (then even while
   * it runs); count 0 otherwise and once the session is empty.
   */
  lingering: MemberList = NO_MEMBERS;
  /** When the PTY ended (ISO 8601), set with its final status; null until then. */
  endedAt: string | null = null;
  readonly ended: Promise<void>;
  /** The screen as a terminal shows it; its emulator is made on first need (see LazyScreen). */
  readonly screen: LazyScreen;
  size: TerminalSize;

  private handle: PtyHandle | undefined;
  private stopReason: StopReason | undefined;
  private readonly kill$ = new Subject<StopReason>();
  /** Each chunk once it is in the buffer, the first stop reason, the exit; completes when the PTY has ended. Waits and watch rules listen here. */
  private readonly activity = new Multicast<PtyActivity>();
  readonly activity$ = this.activity.observable;
  /**
   * Where the output ends, after each chunk that left a full-screen program's alternate screen showing; completes with
   * activity$. Screen waits listen here (screen-wait.ts): a stream of its own, so that on the normal screen, where a
   * flood goes, a pending wait costs its chunks nothing more than the check of a flag.
   */
  private readonly drawing = new Multicast<number>();
  readonly drawnTo$ = this.drawing.observable;
  /** Stops a stream that has not started yet: there is no handle to terminate, so its teardown must. */
  private readonly abortStart$ = new ReplaySubject<void>(1);
  private readonly ended$ = new ReplaySubject<void>(1);
  /** Cuts a stream that did not end although its session was swept empty (the hard bound; see stop). */
  private readonly cut$ = new Subject<void>();
  private termination: Promise<TerminationReport | undefined> | undefined;
  /** The teardown's sweep, when the PTY was stopped before it had a handle (see followTeardownSweep). */
  private sweepAgain: (() => Observable<TerminationReport>) | undefined;
  /** Answers what the program asks its terminal (cursor position, device attributes), as a terminal would. */
  private readonly answers = new TerminalAnswers(
    {
      takeQueries: () => this.buffer.takeQueries(),
      rawInput: async () => {
        const terminal = this.handle?.terminal();
        const canonical = terminal === undefined ? undefined : await isCanonicalMode(terminal);
        return canonical === undefined ? undefined : !canonical;
      },
      cursor: async () => (await this.screen.snapshot()).cursor,
      write: async (bytes) => this.handle?.write(bytes),
    },
    // Best effort, as a terminal's: the program may have ended meanwhile.
    () => undefined,
  );
  private exited = false;
  private notified = false;
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
    this.buffer = new OutputBuffer({ size: this.size });
    this.screen = new LazyScreen(this.buffer, this.size);
  }

  /** Changes the terminal's size while it runs: the program gets SIGWINCH, the emulator takes the new shape. */
  async resize(size: TerminalSize): Promise<void> {
    if (!this.acceptsInput) {
      throw new PtyError('not_running', `${this.info.id} is ${this.status}; only a running terminal can be resized.`);
    }
    if (this.terminalSid === null) {
      throw new PtyError(
        'not_running',
        `${this.info.id}'s terminal is not identified yet (its program's output came before its session was seen); nothing was changed. Try again in a moment.`,
      );
    }
    const before = this.size;
    // The emulator first: the output so far was drawn at the old size; the program's redraw comes after SIGWINCH.
    await this.screen.resize(size);
    this.buffer.noteResize(size);
    try {
      await resizeTerminal(this.terminalSid, size.rows, size.cols);
    } catch (err) {
      await this.screen.resize(before);
      this.buffer.noteResize(before);
      throw err;
    }
    this.size = size;
  }

  /**
   * Called when the registry drops the PTY: the emulator's memory goes with it. An empty buffer is made in its
   * buffer's place, a set of events in its events' place, a session that never starts in its own, and two match
   * expressions (see matchShapes), so the next PTY's output finds the ingest path still optimized (see ShapeKeeper).
   */
  dispose(): void {
    bufferShapes.renew();
    eventShapes.renew();
    sessionShapes.renew();
    matchShapes.renew();
    this.screen.dispose();
  }

  get owner(): string {
    return this.info.owner;
  }

  /** Whether it still holds processes (starting, running or lingering): it counts against the limits and is never evicted. */
  get running(): boolean {
    return this.status === 'starting' || this.status === 'running' || this.status === 'lingering';
  }

  /** Whether it holds processes: running (see running), or ended with survivors of its sweep (see stop). */
  get holdsProcesses(): boolean {
    return this.running || this.lingering.count > 0;
  }

  /** Whether the program still reads its terminal. */
  get acceptsInput(): boolean {
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
    // Every stop sweeps (the sweep itself is shared while one runs and bounded); only the first names the status.
    stop$.pipe(takeUntil(this.ended$)).subscribe((reason) => this.beginTermination(reason));
    (deps.spawn ?? ptyProcess$)(this.spec, {
      reaper: deps.reaper,
      onTeardownSweep: (terminate) => this.followTeardownSweep(terminate),
      ...(deps.outputChannels ? { outputChannels: deps.outputChannels } : {}),
    })
      .pipe(
        intoBuffer(this.buffer, outputOf),
        tapHandler(this),
        takeUntil(merge(this.abortStart$, this.cut$)),
        finalize(() => this.settle()),
      )
      .subscribe({
        error: (err: unknown) => this.failStart(err),
      });
    return started;
  }

  /**
   * Asks the PTY to end (first reason wins) and sweeps its whole terminal session. Resolves when the session is
   * empty and the PTY has ended, or when the sweep's bound passed, with the members that survived it.
   */
  async stop(reason: StopReason): Promise<StopOutcome> {
    this.kill$.next(reason);
    // Stopped while starting, its stream's teardown swept and left survivors: only that sweep can go again.
    if (this.termination === undefined && !this.running && this.lingering.count > 0 && this.sweepAgain)
      this.follow(this.sweepAgain());
    const termination = this.termination;
    if (termination === undefined) {
      await this.ended;
      return { survivors: this.lingering };
    }
    const report = await termination;
    if (report === undefined || report.survivors.count === 0) {
      await this.ended;
      // Stopped while starting, no stream is left to say the session emptied: this sweep does.
      if (!this.running) this.lingering = NO_MEMBERS;
      return { survivors: NO_MEMBERS };
    }
    this.lingering = report.survivors;
    if (this.exited) this.notifyExit();
    return { survivors: report.survivors };
  }

  async write(bytes: Buffer): Promise<number> {
    await this.answers.answered(MAX_ANSWER_WAIT_MS);
    const handle = await this.checkInput(bytes);
    const written = await handle.write(bytes);
    this.pendingLineBytes = longestLine(this.pendingLineBytes, bytes).pendingAfter;
    return written;
  }

  /**
   * Refuses input the PTY cannot take as given: it ended, or the write makes an input line longer than a terminal in
   * line mode keeps. A caller checks before it asks the user or resizes, so that a refused write changes nothing.
   */
  async checkInput(bytes: Buffer): Promise<PtyHandle> {
    if (!this.acceptsInput || this.handle === undefined) {
      throw new PtyError('not_running', `${this.info.id} is ${this.status}; it takes no more input. Spawn a new PTY.`);
    }
    const { longest } = longestLine(this.pendingLineBytes, bytes);
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
    return this.handle;
  }

  /** Each event of its process stream, once it is in the buffer: the session's own pipeline calls it (see start). */
  onEvent(event: PtyEvent): void {
    // The event of every chunk goes the short way: ts-pattern's match per chunk cost ≈0.45 ms per MiB of a flood
    // (profiled, docs/perf-journal.md); the other kinds, a few per PTY, are matched exhaustively as everywhere.
    if (event.kind === 'output') {
      this.screen.noteOutput();
      if (this.buffer.hasQueries) this.answers.note();
      // Most chunks have no listener (no wait, no watch rule): then not even the loop over none.
      if (this.activity.observed) this.activity.next(OUTPUT_ACTIVITY);
      if (this.drawing.observed && this.buffer.alternateScreen) this.drawing.next(this.buffer.totalRawChars);
      return;
    }
    match(event)
      .with({ kind: 'started' }, ({ handle }) => {
        this.handle = handle;
        this.pid = handle.pid;
        this.status = 'running';
        this.startWaiters?.resolve();
      })
      .with({ kind: 'exit' }, (exit) => {
        this.exitCode = exit.exitCode;
        this.signal = exit.signal ?? exit.inferredSignal;
        this.signalInferred = exit.signal === null && exit.inferredSignal !== null;
        this.exited = true;
        this.lingering = exit.lingering;
        if (exit.lingering.count > 0) this.status = 'lingering';
        else this.markEnded();
        // Left on its own, the model must learn now that its program ended and what it left; while a sweep runs,
        // the notice waits for its outcome (see follow).
        if (this.termination === undefined || exit.lingering.count === 0) this.notifyExit();
        // The program has ended: that ends every wait, whether or not members of its session linger.
        this.activity.next({ kind: 'exit' });
      })
      .with({ kind: 'members' }, ({ lingering }) => {
        this.lingering = lingering;
        if (lingering.count === 0 && this.status === 'lingering') {
          this.markEnded();
          this.notifyExit();
        }
      })
      .exhaustive();
  }

  private notifyExit(): void {
    if (this.notified) return;
    this.notified = true;
    this.deps.onExit(this);
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
    const first = this.stopReason === undefined;
    this.stopReason ??= reason;
    if (first) this.activity.next({ kind: 'stopping', reason });
    if (this.handle) this.terminateOnce(this.handle);
    else this.abortStart$.next();
  }

  /** One sweep at a time; a sweep that left survivors lets the next stop sweep again. */
  private terminateOnce(handle: PtyHandle): void {
    if (this.termination !== undefined) return;
    const termination$ = handle.terminate();
    this.deps.reaper.track(termination$);
    // The session is empty, so script's close follows at once; a stream that still does not end is cut.
    termination$
      .pipe(
        filter((r) => r.survivors.count === 0),
        switchMap(() => timer(EXIT_AFTER_TERMINATION_MARGIN_MS, this.deps.scheduler)),
        takeUntil(this.ended$),
      )
      .subscribe(() => this.cut$.next());
    this.follow(termination$);
  }

  /**
   * The sweep the stream's teardown started, the PTY stopped before it had a handle: `stop` reports what it left,
   * rather than an empty session while the reaper is still ending its processes.
   */
  private followTeardownSweep(terminate: () => Observable<TerminationReport>): void {
    this.sweepAgain = terminate;
    // The teardown's sweep is the last word, even over one followed before (which may have had nothing to name).
    this.follow(terminate());
  }

  /** The sweep whose report `stop` awaits; one that left survivors is let go, so that the next stop sweeps again. */
  private follow(termination$: Observable<TerminationReport>): void {
    const report = firstValueFrom(termination$, { defaultValue: undefined }).catch(() => undefined);
    this.termination = report;
    void report.then((r) => {
      if (r === undefined || r.survivors.count === 0) return;
      if (this.termination === report) this.termination = undefined;
      // Whether or not a stop awaits it: the survivors are the PTY's, and an ended program's notice names them.
      this.lingering = r.survivors;
      if (this.exited || !this.running) this.notifyExit();
    });
  }

  private failStart(err: unknown): void {
    this.startWaiters?.reject(err);
  }

  /** Every ending passes here once: exit, error, hard stop, or start aborted. */
  private settle(): void {
    // The pipeline's taps are still alive here: the kept one follows their class as it is now (see ShapeKeeper).
    handlerSubscriberShapes.renew();
    // Ended without an exit event: never started, or the stream was cut or failed.
    if (this.running) this.markEnded();
    // A PTY that ran and ended without its exit event (a failed scan of its session, a cut) is still an end its owner
    // asked to hear of, at most once as always: after the outcome of a sweep that runs (a stop's, a timeout's).
    if (this.handle !== undefined) {
      const termination = this.termination;
      if (termination === undefined) this.notifyExit();
      else void termination.then(() => this.notifyExit());
    }
    this.ended$.next();
    const code = match(this.stopReason)
      .with('owner-deleted', () => 'owner_deleted' as const)
      .with('close', () => 'closing' as const)
      .with(undefined, 'kill', 'timeout', () => 'spawn_failed' as const)
      .exhaustive();
    this.startWaiters?.reject(
      new PtyError(code, `${this.info.id} ended before it started (${this.stopReason ?? 'start failed'}).`),
    );
    this.resolveEnded();
    this.activity.complete();
    this.drawing.complete();
  }
}

const KEPT_SESSION_INFO: PtyInfo = {
  id: 'pty_shape',
  owner: '',
  title: '',
  description: '',
  command: '',
  args: [],
  workdir: '/',
  createdAt: '',
  timeoutSeconds: null,
  notifyOnExit: false,
};
const KEPT_SESSION_DEPS: PtySessionDeps = {
  reaper: new Reaper(),
  close$: NEVER,
  ownerDeleted$: NEVER,
  onExit: () => undefined,
};

/**
 * A session that never starts, with its activity's Multicast and its lazy screen, and the buffer step of a session's
 * pipeline, made anew whenever a PTY is let go (see ShapeKeeper): every chunk passes through all four, and a heap
 * snapshot found none of them alive once the PTY was removed (docs/perf-journal.md, twenty-fourth session).
 */
export const sessionShapes = new ShapeKeeper((): readonly object[] => {
  const spec: PtySpec = { command: '', args: [], workdir: '/', rows: 1, cols: 1 };
  const session = new PtySession(KEPT_SESSION_INFO, spec, KEPT_SESSION_DEPS);
  return [session, idleBufferIngest(session.buffer, outputOf)];
});
