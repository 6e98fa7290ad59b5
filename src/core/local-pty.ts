import { match } from 'ts-pattern';
import type { PtyStatus } from '../protocol/tool-results.js';
import {
  concatWith,
  defer,
  EMPTY,
  from,
  ignoreElements,
  lastValueFrom,
  mergeMap,
  type Observable,
  ReplaySubject,
  Subject,
  Subscription,
  takeUntil,
  tap,
  timeout,
} from 'rxjs';
import { PtyError } from '../errors.js';
import { checkCommandBounds } from '../engine/command-bounds.js';
import { orphanGuard } from '../engine/orphan-guard.js';
import { Reaper } from '../engine/reaper.js';
import { CLOSE_TIMEOUT_MS, DEFAULT_COLS, DEFAULT_ROWS, MAX_REMEMBERED_DELETED_OWNERS } from '../limits.js';
import { abortable, InFlight } from '../registry/inflight.js';
import { Registry, type RegistryLimits } from '../registry/registry.js';
import { GrepPool } from '../search/grep-pool.js';
import { outputChannel$ } from '../streams/output-channel.js';
import { SpareOutputChannel } from '../streams/spare-output-channel.js';
import type { KillInput, ReadInput, SpawnInput, WriteInput } from '../protocol/tool-inputs.js';
import type { KillResult, ListResult, ReadResult, SpawnResult, WriteResult } from '../protocol/tool-results.js';
import { BoundedSet } from './bounded-set.js';
import { describePty, membersView } from './envelopes.js';
import type { CallContext, HostPort } from './host-port.js';
import { Notifications } from './notifications.js';
import { PtySession, type StopReason } from './pty-session.js';
import { readAfter, readsAfter } from './read-after.js';
import { actThenWait, compileWait, refuseIgnoreCaseAlone } from './wait-call.js';
import { compileWatch } from './watch-rules.js';
import { readWithScreen } from './screen-read.js';
import { typedBytes, typePresses, writeRequest } from './write-request.js';
import {
  externalDirectoryRequest,
  killRequest,
  promptCommandLine,
  spawnRequest,
  typingRequest,
} from './permission-requests.js';
import { recheckWorkdir, resolveWorkdir } from './workdir.js';
import type { ptyProcess$ } from '../streams/pty-process.js';
import { checkCommandRuns } from '../engine/command-lookup.js';

export interface LocalPtyOptions {
  /** The project directory: the default workdir, and the boundary of external_directory. */
  readonly projectDir: string;
  readonly host: HostPort;
  readonly limits?: RegistryLimits;
  /** Tests swap the process stream for a fake. */
  readonly spawn?: typeof ptyProcess$;
  readonly grepPool?: GrepPool;
}

/**
 * The core of local-pty: five operations for the model, owner-scoped, gated by plugin close and owner
 * deletion, with every pending operation settled on close. Knows nothing of OpenCode: a host adapter calls it.
 */
export class LocalPty {
  private readonly registry: Registry<PtySession>;
  private readonly inflight = new InFlight();
  private readonly reaper = new Reaper();
  private readonly grep: GrepPool;
  private readonly close$ = new ReplaySubject<void>(1);
  private readonly ownerDeleted$ = new Subject<string>();
  private readonly notifications: Notifications;
  private readonly deletedOwners = new BoundedSet<string>(MAX_REMEMBERED_DELETED_OWNERS);
  private readonly subscriptions = new Subscription();
  /** One output socket paired ahead of the next start; none until the first start, released at close. */
  private readonly spareChannel = new SpareOutputChannel(outputChannel$);
  private closing: Promise<void> | undefined;

  constructor(private readonly options: LocalPtyOptions) {
    this.registry = new Registry<PtySession>(options.limits, (id) =>
      options.host.log.info('evicted ended PTY', { id }),
    );
    this.grep = options.grepPool ?? new GrepPool();
    const { host } = options;
    this.notifications = new Notifications(
      host,
      (owner) => this.closing !== undefined || this.deletedOwners.has(owner),
      this.close$,
      this.ownerDeleted$,
    );
    this.subscriptions.add(
      host.sessionDeleted$.pipe(takeUntil(this.close$)).subscribe({
        next: (owner) => void this.deleteOwner(owner),
        error: (err: unknown) => host.log.error('session event stream failed', { error: String(err) }),
      }),
    );
  }

  // ── pty_spawn ──────────────────────────────────────────────────────────────────────────────
  spawn(ctx: CallContext, input: SpawnInput): Promise<SpawnResult> {
    const args = input.args ?? [];
    checkCommandBounds(input.command, args);
    refuseIgnoreCaseAlone('pty_spawn', input.wait);
    const wait = compileWait('pty_spawn', input.wait);
    const watch = compileWatch('pty_spawn', input.watch);
    const owner = ctx.owner;
    this.gate(owner);
    // Synchronous, before the first await: racing spawns cannot overshoot the limits.
    const reservation = this.registry.reserve(owner);
    return this.inflight
      .run(owner, async (signal) => {
        const stop = anySignal(signal, ctx.signal);
        const workdir = await resolveWorkdir(input.workdir, this.options.projectDir);
        // A name is looked up on the PTY's PATH (system directories) before anyone is asked; a path only once the
        // spawn is allowed: whether a file exists outside the project is not told for free.
        const commandIsPath = input.command.includes('/');
        if (!commandIsPath) checkCommandRuns(input.command, workdir.realPath);
        const commandLine = promptCommandLine(input.command, args);
        if (workdir.external) await abortable(ctx.ask(externalDirectoryRequest(workdir.realPath, commandLine)), stop);
        await abortable(ctx.ask(spawnRequest(commandLine, workdir.realPath, input.description)), stop);
        // Recheck after approval: the world may have moved while the user read the prompt.
        stop.throwIfAborted();
        this.gate(owner);
        recheckWorkdir(workdir.realPath);
        if (commandIsPath) checkCommandRuns(input.command, workdir.realPath);
        stop.throwIfAborted();
        this.gate(owner);
        const session = new PtySession(
          {
            id: reservation.id,
            owner,
            title: input.title ?? input.description,
            description: input.description,
            command: input.command,
            args,
            workdir: workdir.realPath,
            createdAt: new Date().toISOString(),
            timeoutSeconds: input.timeoutSeconds ?? null,
            notifyOnExit: input.notifyOnExit ?? false,
          },
          {
            command: input.command,
            args,
            workdir: workdir.realPath,
            workdirIdentity: workdir.identity,
            rows: input.rows ?? DEFAULT_ROWS,
            cols: input.cols ?? DEFAULT_COLS,
          },
          {
            reaper: this.reaper,
            close$: this.close$,
            ownerDeleted$: this.ownerDeleted$,
            onExit: (s) => this.notifications.exited(s),
            outputChannels: () => this.spareChannel.take(),
            ...(this.options.spawn ? { spawn: this.options.spawn } : {}),
          },
        );
        reservation.commit(session);
        // Both listen before the process starts: its first output is theirs too.
        this.notifications.watch(session, watch);
        const { waited } = await actThenWait(
          session,
          wait,
          stop,
          async () => {
            try {
              await session.start();
              this.gate(owner);
              stop.throwIfAborted();
            } catch (err) {
              // A process that did start is ended; one that never started leaves nothing to read. Members that
              // survived the sweep keep the PTY listed, as everywhere: removed, they would be answerable to nothing.
              const { survivors } = await session.stop('kill');
              if (survivors.count === 0 && (session.pid === null || this.closing || this.deletedOwners.has(owner)))
                this.registry.remove(session.info.id);
              throw err;
            }
          },
          { mark: { line: 1, partialTail: '' } },
        );
        // Line 1 as nothing of it was seen: a wait from this cursor counts everything the program printed.
        return waited ? { ...describePty(session), ...waited } : { ...describePty(session), cursor: 'L1' };
      })
      .finally(() => reservation.release());
  }

  // ── pty_write ──────────────────────────────────────────────────────────────────────────────
  write(ctx: CallContext, input: WriteInput): Promise<WriteResult> {
    const request = writeRequest(input);
    refuseIgnoreCaseAlone('pty_write', input.wait);
    const wait = compileWait('pty_write', input.wait);
    const owner = ctx.owner;
    this.gate(owner);
    const session = this.runningSession(owner, input.id);
    return this.inflight.run(owner, async (signal) => {
      const stop = anySignal(signal, ctx.signal);
      if (request.typing === undefined) {
        // A resize types nothing: ownership and a running PTY are enough, no prompt. A wait hears the redraw it causes.
        const cursor = wait === undefined ? cursorBefore(session) : undefined;
        const { waited } = await actThenWait(session, wait, stop, async () => {
          // A call cancelled before it acts changes nothing.
          stop.throwIfAborted();
          if (request.resize !== undefined) await session.resize(request.resize);
        });
        const base = { id: input.id, bytesWritten: 0, size: session.size };
        return waited ? { ...base, ...waited } : { ...base, status: session.status, cursor: cursor as string };
      }
      const { bytes, presses, visible, keys } = await typedBytes(session, request.typing);
      // Refused input is refused before the user is asked to approve it and before a resize in the same call.
      await session.checkInput(bytes);
      const commandLine = promptCommandLine(session.info.command, session.info.args);
      const typed = { visible, byteCount: bytes.length, keys };
      await abortable(ctx.ask(typingRequest(input.id, session.info.command, commandLine, typed)), stop);
      stop.throwIfAborted();
      this.gate(owner);
      this.runningSession(owner, input.id);
      // Resized only once the typing is allowed: a refused or bad write changes nothing; the size still comes first.
      if (request.resize !== undefined) await session.resize(request.resize);
      const resized = request.resize === undefined ? {} : { size: session.size };
      const cursor = wait === undefined ? cursorBefore(session) : undefined;
      // Write, then listen in the same run: the answer comes in a later turn, and the write need not wait for the setup.
      const { value: written, waited } = await actThenWait(session, wait, stop, () =>
        typePresses(session, presses, stop),
      );
      if (waited) return { id: input.id, bytesWritten: written, ...resized, ...waited };
      return { id: input.id, bytesWritten: written, status: session.status, ...resized, cursor: cursor as string };
    });
  }

  // ── pty_read ───────────────────────────────────────────────────────────────────────────────
  read(ctx: CallContext, input: ReadInput): Promise<ReadResult> {
    const owner = ctx.owner;
    this.gate(owner);
    const session = this.registry.get(owner, input.id);
    if (readsAfter(input)) return readAfter(session, input, ctx.signal, (work) => this.inflight.run(owner, work));
    return readWithScreen(session, input, (request) =>
      this.inflight.run(owner, (signal) => this.grep.search({ ...request, signal: anySignal(signal, ctx.signal) })),
    );
  }

  // ── pty_list ───────────────────────────────────────────────────────────────────────────────
  list(ctx: CallContext): ListResult {
    this.gate(ctx.owner);
    return { ptys: this.registry.ownedBy(ctx.owner).map(describePty) };
  }

  // ── pty_kill ───────────────────────────────────────────────────────────────────────────────
  kill(ctx: CallContext, input: KillInput): Promise<KillResult> {
    const owner = ctx.owner;
    this.gate(owner);
    const session = this.registry.get(owner, input.id);
    const commandLine = promptCommandLine(session.info.command, session.info.args);
    return this.inflight.run(owner, async (signal) => {
      let survivors = null as ReturnType<typeof membersView>;
      // Running, exited with members of its terminal session left, or stopped while starting with survivors of its
      // sweep: either way there are processes to end.
      if (session.holdsProcesses) {
        await abortable(
          ctx.ask(killRequest(input.id, commandLine, input.cleanup ?? false)),
          anySignal(signal, ctx.signal),
        );
        this.gate(owner);
        this.registry.get(owner, input.id);
        survivors = membersView((await session.stop('kill')).survivors);
      }
      // A PTY whose session still has members stays listed: removing it would leave them answerable to nothing.
      const removed = (input.cleanup ?? false) && survivors === null;
      if (removed) this.registry.remove(input.id);
      return {
        ...describePty(session),
        removed,
        survivors,
        ...(survivors === null
          ? {}
          : {
              note: `${survivors.count} process(es) of this PTY's terminal session survived the sweep (TERM, grace, freeze, KILL) within its bound; they are listed in survivors and stay in this PTY. Call pty_kill again.`,
            }),
      };
    });
  }

  // ── owner deletion and close ───────────────────────────────────────────────────────────────
  /** The owner session is gone: refuse its new work, abort what is in flight, end and drop its PTYs. */
  async deleteOwner(owner: string): Promise<void> {
    this.deletedOwners.add(owner);
    this.ownerDeleted$.next(owner);
    const error = new PtyError('owner_deleted', 'the session that owns this PTY was deleted.');
    const work$ = defer(() => this.inflight.abortOwner(owner, error)).pipe(
      ignoreElements(),
      concatWith(defer(() => this.endAll$(this.registry.ownedBy(owner), 'owner-deleted'))),
      // Bounded as close is: each sweep has its own bound, this one holds for the whole deletion.
      timeout({
        first: CLOSE_TIMEOUT_MS,
        with: () => {
          this.options.host.log.error(`deleting session ${owner} did not finish within ${CLOSE_TIMEOUT_MS} ms`, {
            ...this.stats,
          });
          return EMPTY;
        },
      }),
    );
    await lastValueFrom(work$, { defaultValue: undefined });
  }

  /**
   * Ends PTYs together (exited ones with lingering members included) and removes each whose terminal session is
   * empty; one with survivors past the sweep's bound is logged with them, and stays listed so close sweeps it again.
   */
  private endAll$(sessions: readonly PtySession[], reason: StopReason): Observable<never> {
    const { log } = this.options.host;
    return from(sessions).pipe(
      mergeMap((s) =>
        from(s.stop(reason)).pipe(
          tap(({ survivors }) => {
            if (survivors.count === 0 || reason === 'close') this.registry.remove(s.info.id);
            if (survivors.count > 0)
              log.warn("members of a PTY's terminal session survived its sweep", {
                id: s.info.id,
                reason,
                survivors: membersView(survivors),
              });
          }),
        ),
      ),
      ignoreElements(),
    );
  }

  /** Closes the plugin: gates everything, ends every PTY and settles every pending operation, bounded. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  get stats() {
    return {
      ptys: this.registry.total(),
      inflight: this.inflight.size,
      terminating: this.reaper.size,
      pendingNotifications: this.notifications.pending,
    };
  }

  private async closeOnce(): Promise<void> {
    const { log } = this.options.host;
    this.close$.next();
    this.close$.complete();
    this.spareChannel.close();
    const work$ = defer(() => this.inflight.abortEverything(new PtyError('closing', 'local-pty is closing.'))).pipe(
      ignoreElements(),
      concatWith(
        defer(() => this.endAll$(this.registry.all(), 'close')),
        defer(() => this.reaper.drain()).pipe(ignoreElements()),
        defer(() => this.grep.close()).pipe(ignoreElements()),
      ),
      timeout({
        first: CLOSE_TIMEOUT_MS,
        with: () => {
          log.error(`close did not finish within ${CLOSE_TIMEOUT_MS} ms`, { ...this.stats });
          return EMPTY;
        },
      }),
    );
    await lastValueFrom(work$, { defaultValue: undefined });
    // A guard kept for the next PTY has none to wait for now (another instance's PTYs keep theirs guarded).
    orphanGuard.stopIfIdle();
    this.subscriptions.unsubscribe();
    this.notifications.close();
    this.ownerDeleted$.complete();
  }

  private gate(owner: string): void {
    if (this.closing) throw new PtyError('closing', 'local-pty is closing; no PTY operations are accepted.');
    if (this.deletedOwners.has(owner))
      throw new PtyError('owner_deleted', 'this session was deleted; its PTYs are gone.');
  }

  private runningSession(owner: string, id: string): PtySession {
    const session = this.registry.get(owner, id);
    if (!session.acceptsInput) {
      throw new PtyError(
        'not_running',
        `${id} ${endedAs(session.status)}${session.exitCode === null ? '' : ` with exit code ${session.exitCode}`}; it takes no input. pty_read still shows its output.`,
      );
    }
    return session;
  }
}

/** One signal that aborts when either does (the tool call's own, or our owner/close abort). */
function anySignal(ours: AbortSignal, theirs: AbortSignal | undefined): AbortSignal {
  return theirs === undefined ? ours : AbortSignal.any([ours, theirs]);
}

/**
 * Where the output stands before a write without a wait acts: a read from this cursor with a wait hears the answer.
 * Not made for a write that waits (its result carries its own): a mark made for nothing would push out one in use.
 */
function cursorBefore(session: PtySession): string {
  return session.cursors.handOut(session.buffer, session.buffer.completedLines + 1);
}

/** How a PTY that takes no input ended, as a sentence says it. */
function endedAs(status: PtyStatus): string {
  return match(status)
    .with('starting', () => 'is still starting')
    .with('running', () => 'is stopping')
    .with('exited', () => 'has exited')
    .with('lingering', () => 'has exited, with members of its session still running')
    .with('killed', () => 'was killed')
    .with('timeout', () => 'was ended by its timeoutSeconds')
    .exhaustive();
}
