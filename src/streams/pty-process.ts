import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import {
  catchError,
  endWith,
  finalize,
  Observable,
  ReplaySubject,
  type SchedulerLike,
  skip,
  Subscriber,
  Subscription,
  switchMap,
  takeUntil,
  throwError,
} from 'rxjs';
import { match } from 'ts-pattern';
import { LINGER_FULL_SCAN_MS, LINGER_POLL_MS, MAX_SCRIPT_STDERR_CHARS } from '../limits.js';
import { bindDirectory, type BoundDirectory, type DirectoryIdentity } from '../engine/bound-directory.js';
import { readStat, terminalOf } from '../engine/procfs.js';
import { scriptExitCode, unreapedLeaderStatus } from '../engine/script-missed-death.js';
import type { Reaper } from '../engine/reaper.js';
import { hostDescriptors } from '../engine/inheritable-fds.js';
import { defaultWrapper, scriptInvocation, type WrapperKind } from '../engine/script-invocation.js';
import { ARGV_FD, type ArgvVia } from '../engine/wrapper-argv.js';
import { orphanGuard as sharedOrphanGuard, type OrphanGuard } from '../engine/orphan-guard.js';
import { inferSignalFromExitCode } from '../engine/signal-names.js';
import { StdinWriter } from '../engine/stdin-writer.js';
import { usingDescriptor } from '../operators/using-descriptor.js';
import { childProcessEvents$, idleRelay } from './child-process-events.js';
import { type NotOutput, OutputFirst, StartFirst } from './event-order.js';
import { SeenGroups } from '../operators/seen-groups.js';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import { childSpecimens, keepAsSpecimen, keepPipeHandles } from './child-specimens.js';
import { scriptTermination } from './script-termination.js';
import { describeMembers, type TerminationReport } from './session-report.js';
import { Utf8Chunks } from './utf8-chunks.js';
import { exitEvent, flushedOutputEvent, membersEvent, type PtyEvent } from './pty-events.js';
import { type ForkTurns, inForkTurn } from './fork-turns.js';
import { gateFor, ingestGate as sharedIngestGate, type IngestGate } from './ingest-gate.js';
import {
  CHILD_SOCKETS_STAY_NONBLOCKING,
  type OutputChannel,
  outputChannel$,
  outputViaChannel,
} from './output-channel.js';
import { lingeringMembers$, procMemberProbe, type MemberProbe, trustedScanInSlices } from './session-members.js';
import { sessionLeader$ } from './session-leader.js';
import { signalQuietly } from './session-signals.js';
import { spawnFailed } from './spawn-failed.js';

export interface PtySpec {
  readonly command: string;
  readonly args: readonly string[];
  /** Real path, already approved: it is bound by descriptor at subscribe time. */
  readonly workdir: string;
  /** The directory the path named when it was approved; bound only if it still is that directory. */
  readonly workdirIdentity?: DirectoryIdentity;
  readonly rows: number;
  readonly cols: number;
}

export interface PtyHandle {
  /** pid of `script` (the bash and setpriv links in front of it, when there, exec into it). */
  readonly pid: number;
  /** The terminal's Unix session id (the pid of the program, which leads it); null if it ended before it was seen. */
  readonly terminalSid: number | null;
  write(bytes: Buffer): Promise<number>;
  /** /dev/pts/N of the command, while it runs. */
  terminal(): string | undefined;
  /**
   * Sweeps the whole terminal session (TERM → grace → freeze → KILL, see sweep-session.ts), then a backstop for
   * script. Bounded; concurrent calls share one sweep; a call after a sweep that left survivors sweeps again.
   */
  terminate(): Observable<TerminationReport>;
}

export interface PtyProcessDeps {
  readonly reaper: Reaper;
  /** Opens the working directory; injectable so tests can count descriptor closes. */
  readonly bind?: (realPath: string) => BoundDirectory;
  /** `null`: stdout never pauses. Default: the shared gate where a pause holds the output back (gateFor). */
  readonly ingestGate?: IngestGate | null;
  readonly orphanGuard?: OrphanGuard;
  readonly scheduler?: SchedulerLike;
  /** How the argv reaches the chain; default DEFAULT_ARGV_VIA (see script-invocation.ts). */
  readonly argvVia?: ArgvVia;
  /** What runs in the PTY before the program; default defaultWrapper(), Perl where it runs (see script-invocation.ts). */
  readonly wrapper?: WrapperKind;
  /** `null`: start at subscribe, whatever else started this turn. Default: the shared one-start-per-turn queue. */
  readonly forkTurns?: ForkTurns | null;
  /**
   * Whether script's stdout is an output socket read into one reused buffer (output-channel.ts) rather than the
   * runtime's pipe. Default outputViaChannel(wrapper) (Node: yes; Bun: behind the Perl wrapper).
   */
  readonly outputChannel?: boolean;
  /**
   * Where the output socket comes from: default, one paired for this start (outputChannel$); the core passes its
   * spare's `take` (spare-output-channel.ts), so that a start finds its pair made.
   */
  readonly outputChannels?: () => Observable<OutputChannel>;
  /**
   * Hears the sweep a teardown starts (the stream unsubscribed before it ended: a PTY stopped while starting, whose
   * owner has no handle yet): its `terminate`, already called once, so that the owner can report what the sweep
   * left and sweep again. The reaper tracks the sweep either way.
   */
  readonly onTeardownSweep?: (terminate: () => Observable<TerminationReport>) => void;
}

/**
 * One PTY as one Observable, accountable for its whole terminal session. Subscribing binds the workdir, starts
 * `script` (in a turn of the host's loop no other start has had, see ForkTurns) and emits `started`, then `output`
 * chunks (UTF-8 decoded across chunk boundaries), then `exit` when the program (the session leader) has ended and
 * `script` has closed. If members of the session are left then, it
 * goes on with `members` events until the session is empty, and only then completes. Unsubscribing before that
 * sweeps the whole session (tracked by the reaper, since a teardown cannot wait).
 *
 * `exit` is emitted on the child's `close`, not `exit`: data can arrive after the process exit, and the pipes are
 * only drained at `close`.
 */
export function ptyProcess$(spec: PtySpec, deps: PtyProcessDeps): Observable<PtyEvent> {
  const start$ = (channel: OutputChannel | null) =>
    // The workdir is bound in the start's own turn: a start that waits holds no descriptor.
    inForkTurn(
      usingDescriptor(
        () => (deps.bind ?? bindDirectory)(spec.workdir, spec.workdirIdentity),
        (bound, closeBound) => scriptProcess$(spec, bound, closeBound, deps, channel),
      ),
      deps.forkTurns,
    );
  if (!(deps.outputChannel ?? outputViaChannel(deps.wrapper ?? defaultWrapper()))) return start$(null);
  // The output socket is connected before the start's turn comes: connecting takes a turn of the loop, and a start
  // waits for none once its turn has come. Released on every ending; a stream stopped while script runs leaves it
  // draining until script's end closes (see the teardown below).
  return (deps.outputChannels ?? outputChannel$)().pipe(
    catchError((err: unknown) => throwError(() => spawnFailed(err))),
    switchMap((channel) => start$(channel).pipe(finalize(() => channel.release()))),
  );
}

function scriptProcess$(
  spec: PtySpec,
  bound: BoundDirectory,
  closeBound: () => void,
  deps: PtyProcessDeps,
  channel: OutputChannel | null,
): Observable<PtyEvent> {
  const gate = deps.ingestGate === undefined ? gateFor(channel !== null) : deps.ingestGate;
  const guard = deps.orphanGuard ?? sharedOrphanGuard;
  const { scheduler } = deps;
  return new Observable<PtyEvent>((subscriber) => {
    const invocation = scriptInvocation(spec.command, spec.args, spec.rows, spec.cols, {
      closeInheritedFds: hostDescriptors.held(),
      // A running guard lists script's session before spawn() returns to us (below): setpriv would be a second
      // hand doing the same, at an exec per spawn.
      dieWithHost: !guard.running,
      argvVia: deps.argvVia,
      wrapper: deps.wrapper,
      stdoutTwin: channel !== null && CHILD_SOCKETS_STAY_NONBLOCKING,
    });
    let child: ChildProcess;
    try {
      const stdout = channel === null ? ('pipe' as const) : channel.childEnd;
      if (stdout === undefined) throw new Error('its output socket was closed before the start');
      child = spawn(invocation.file, invocation.args, {
        cwd: bound.cwdPath,
        env: invocation.env,
        detached: true,
        // The argv channel is the fourth pipe (ARGV_FD), there only when the argv travels on it; stdout's twin last.
        stdio: [
          'pipe',
          stdout,
          'pipe',
          ...(invocation.argv === undefined ? [] : (['pipe'] as const)),
          ...(invocation.stdoutTwinFd === undefined ? [] : [stdout]),
        ],
      });
    } catch (err) {
      subscriber.error(spawnFailed(err));
      return;
    } finally {
      // The chdir happened in the forked child before exec; the descriptor has done its work. The host's copy of
      // script's end of the output socket stays until script exits (ChildEventRelay.exit), or a failed start ends.
      closeBound();
    }
    // The wrapper reads the argv until EOF; a chain that died first makes this fail, which 'close' reports.
    const argvChannel = child.stdio[ARGV_FD] as Duplex | null | undefined;
    argvChannel?.on('error', () => undefined);
    // Our side is written and ended; once the chain's side ends too, nothing more can pass: close it.
    argvChannel?.once('end', () => argvChannel.destroy());
    argvChannel?.end(invocation.argv);

    const pid = child.pid;
    keepPipeHandles(child, channel?.reader);
    const childEvents$ = childProcessEvents$(child, gate, channel);
    if (pid === undefined) {
      // spawn reports a failed start asynchronously through 'error'; without a pid nothing runs.
      return childEvents$.subscribe((e) => {
        if (e.kind === 'error') subscriber.error(spawnFailed(e.error));
      });
    }
    // Kills script should the host die without closing us, until it is reaped (see orphan-guard.ts).
    guard.watch(pid);
    let scriptListed = true;
    const releaseScript = () => {
      if (scriptListed) guard.release(pid);
      scriptListed = false;
    };
    // Read once script runs its loop (at the leader's report, or first use): right after the spawn it is still
    // exec'ing, and its stat then held the host's thread 0.4 ms (against 0.1). Our unreaped child: its pid is ours.
    let scriptStartTime: number | undefined;
    const scriptStart = () => {
      scriptStartTime ??= readStat(pid)?.startTime ?? 0;
      return scriptStartTime;
    };
    const stdin = new StdinWriter(child.stdin!);
    const decoder = new Utf8Chunks();
    const exited$ = new ReplaySubject<void>(1);
    /** Once the session has been seen empty it stays empty: nothing can join a session from outside. */
    const sessionEmptied$ = new ReplaySubject<void>(1);
    const lifetime = new Subscription();
    let stderr = '';
    let terminalSid: number | null = null;
    let closed = false;
    let complete = false;
    // Held output past its bound starts the PTY before its leader is seen; the lookup goes on and fills the sid in.
    const order = new StartFirst(subscriber, () => markStarted());
    const markStarted = () => order.start(handle);
    /** The program's wait status, read from /proc when script is killed beside its unreaped, dead child. */
    let unreapedStatus: number | undefined;
    const killScript = () => {
      if (closed) return;
      if (terminalSid !== null) unreapedStatus ??= unreapedLeaderStatus(pid, terminalSid);
      signalQuietly(pid, 'SIGKILL');
    };
    const releaseGuard = () => {
      if (terminalSid !== null) guard.release(terminalSid);
    };

    // The session's remembered process groups, one memory for the lingering probe and every sweep (see SeenGroups).
    let seenGroups: SeenGroups | undefined;
    const groupsOf = (sid: number): SeenGroups => {
      seenGroups ??= new SeenGroups([sid]);
      return seenGroups;
    };
    const terminate = scriptTermination({
      groups: groupsOf,
      pid,
      scriptStart,
      terminalSid: () => terminalSid,
      exited$,
      killScript,
      onEmptied: () => sessionEmptied$.next(),
      ...(scheduler ? { scheduler } : {}),
    });

    const handle: PtyHandle = {
      pid,
      get terminalSid() {
        return terminalSid;
      },
      write: (bytes) => stdin.write(bytes),
      terminal: () => (terminalSid === null || closed ? undefined : terminalOf(terminalSid)),
      terminate,
    };

    // After the program exits, the members it left keep the PTY accountable until the session is empty.
    // The scan of what the program left runs in slices (a full /proc scan held the host's loop 35–50 ms at every
    // exit on a machine with a thousand processes); a stream unsubscribed meanwhile hears nothing more.
    const lingerOrComplete = () => {
      const probe =
        terminalSid === null ? undefined : procMemberProbe(terminalSid, scriptStart(), groupsOf(terminalSid));
      if (probe === undefined) return reportExit(undefined, []);
      trustedScanInSlices(probe).then(
        (members) => {
          if (!subscriber.closed)
            reportExit(
              probe,
              members.map((m) => m.pid),
            );
        },
        (err: unknown) => subscriber.error(err),
      );
    };
    const reportExit = (probe: MemberProbe | undefined, left: readonly number[]) => {
      const code = exitCode;
      subscriber.next(
        exitEvent({
          exitCode: code.code,
          signal: code.signal,
          inferredSignal: inferSignalFromExitCode(code.code),
          scriptStderr: stderr,
          lingering: describeMembers(left),
        }),
      );
      if (probe === undefined || left.length === 0) return finish();
      let lastCount = left.length;
      lifetime.add(
        lingeringMembers$(probe, {
          pollMs: LINGER_POLL_MS,
          fullScanMs: LINGER_FULL_SCAN_MS,
          ...(scheduler ? { scheduler } : {}),
        })
          .pipe(skip(1), takeUntil(sessionEmptied$), endWith([] as readonly number[]))
          .subscribe({
            next: (pids) => {
              if (pids.length === 0 && lastCount === 0) return;
              lastCount = pids.length;
              subscriber.next(membersEvent(describeMembers(pids)));
            },
            complete: finish,
            // A scan that fails ends the stream with its error (the session settles), never as an uncaught one.
            error: (err: unknown) => subscriber.error(err),
          }),
      );
    };
    const finish = () => {
      complete = true;
      argvChannel?.destroy();
      keepAsSpecimen(child);
      streamShapes.renew();
      releaseGuard();
      subscriber.complete();
    };

    let exitCode: { code: number | null; signal: string | null } = { code: null, signal: null };
    const childSubscription = childEvents$.subscribe(
      new OutputFirst(order, decoder, (event: NotOutput) =>
        match(event)
          .with({ kind: 'stderr' }, ({ chunk }) => {
            if (stderr.length < MAX_SCRIPT_STDERR_CHARS)
              stderr = (stderr + chunk.toString('utf8')).slice(0, MAX_SCRIPT_STDERR_CHARS);
          })
          .with({ kind: 'exit' }, () => {
            releaseScript();
            exited$.next();
          })
          .with({ kind: 'error' }, ({ error }) => {
            if (!order.started) subscriber.error(spawnFailed(error));
          })
          .with({ kind: 'close' }, ({ code, signal }) => {
            closed = true;
            releaseScript();
            // The chain is gone: whatever of the argv channel is left is ours to close.
            argvChannel?.destroy();
            exited$.next();
            lookup.unsubscribe();
            markStarted();
            const rest = decoder.end();
            if (rest.length > 0) subscriber.next(flushedOutputEvent(rest));
            // Killed beside its dead child (it missed the death, see script-missed-death.ts): the program's own status.
            exitCode =
              signal === 'SIGKILL' && unreapedStatus !== undefined
                ? { code: scriptExitCode(unreapedStatus), signal: null }
                : { code, signal };
            lingerOrComplete();
          })
          .exhaustive(),
      ),
    );

    const lookup = sessionLeader$(argvChannel ?? undefined, pid, scheduler).subscribe({
      next: (sid) => {
        terminalSid = sid;
        // Kills the session should the host die without closing us (see orphan-guard.ts), until it is empty.
        if (sid !== null) guard.watch(sid);
        markStarted();
        scriptStart();
      },
      error: (err: unknown) => subscriber.error(err),
    });
    lifetime.add(lookup);

    return () => {
      lifetime.unsubscribe();
      if (complete) return;
      streamShapes.renew();
      if (!closed) {
        // Nobody reads any more: let the output flow (a paused stdout would block script), keep hearing its end.
        childSubscription.unsubscribe();
        if (channel === null) child.stdout?.resume();
        else channel.drain();
        // Reaped is what a sweep must know before it touches script's pid again (script-termination.ts); the guard
        // lets go of script first, as on the live path, so that a close waiting for the sweep finds the guard idle.
        child.once('exit', () => {
          releaseScript();
          exited$.next();
        });
        child.once('close', () => {
          closed = true;
          releaseScript();
          argvChannel?.destroy();
          exited$.next();
        });
      }
      deps.reaper.track(terminate().pipe(finalize(releaseGuard)));
      deps.onTeardownSweep?.(terminate);
    };
  });
}

/**
 * One of each class a PTY's chunks pass through on their way out of its stream, made anew whenever a stream ends (see
 * ShapeKeeper): the child's relay, and the start-first and output-first steps with a decoder. All are made per PTY,
 * and a heap snapshot taken once a PTY was removed and collected found none of them alive (docs/perf-journal.md,
 * twenty-fourth session). The taps' subscriber is renewed where the session's pipeline ends (PtySession.settle).
 */
export const streamShapes = new ShapeKeeper((): readonly object[] => {
  const child = childSpecimens.specimens.at(-1);
  const order = new StartFirst(new Subscriber<PtyEvent>());
  return [
    ...(child === undefined ? [] : [idleRelay(child, sharedIngestGate)]),
    order,
    new OutputFirst(order, new Utf8Chunks(), () => undefined),
  ];
});
