import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { Observable, ReplaySubject, defer, first, map, of, shareReplay, switchMap, timeout, catchError } from 'rxjs';
import { PtyError } from '../errors.js';
import {
  MAX_SCRIPT_STDERR_CHARS,
  SCRIPT_EXIT_BACKSTOP_MS,
  SESSION_LEADER_FULL_SCAN_MS,
  SESSION_LEADER_LOOKUP_MS,
  SESSION_LEADER_POLL_MS,
  TERMINATE_GRACE_MS,
  TERMINATE_POLL_MS,
  TERMINATE_TIMEOUT_MS,
} from '../limits.js';
import { bindDirectory, type BoundDirectory } from '../engine/bound-directory.js';
import { fixedEnvironment } from '../engine/environment.js';
import { childrenOf, readStat, sessionMembers, terminalOf } from '../engine/procfs.js';
import type { Reaper } from '../engine/reaper.js';
import { scriptInvocation } from '../engine/script-invocation.js';
import { orphanGuard } from '../engine/orphan-guard.js';
import { inferSignalFromExitCode } from '../engine/signal-names.js';
import { StdinWriter } from '../engine/stdin-writer.js';
import { terminateSession, type SessionSignaller } from '../operators/terminate-session.js';
import { usingDescriptor } from '../operators/using-descriptor.js';
import { ingestGate } from './ingest-gate.js';

export interface PtySpec {
  readonly command: string;
  readonly args: readonly string[];
  /** Real path, already approved: it is bound by descriptor at subscribe time. */
  readonly workdir: string;
  readonly rows: number;
  readonly cols: number;
}

export interface TerminationReport {
  readonly termed: number;
  readonly escalated: boolean;
  /** `script` had to be SIGKILLed because it did not exit by itself after its session emptied. */
  readonly scriptKilled: boolean;
}

export interface PtyHandle {
  /** pid of `script` (setpriv and bash exec into it). */
  readonly pid: number;
  /** The PTY session id (pid of the command, which is its session leader); null if it ended before it was seen. */
  readonly sessionId: number | null;
  write(bytes: Buffer): Promise<number>;
  /** /dev/pts/N of the command, while it runs. */
  terminal(): string | undefined;
  /** TERM → grace → KILL sweep of the session, then a backstop for script. Idempotent, bounded, shared. */
  terminate(): Observable<TerminationReport>;
}

export type PtyEvent =
  | { readonly kind: 'started'; readonly handle: PtyHandle }
  | { readonly kind: 'output'; readonly text: string; readonly bytes: number }
  | {
      readonly kind: 'exit';
      readonly exitCode: number | null;
      /** Set only when Node saw `script` itself die by a signal (then the command's status is lost). */
      readonly signal: string | null;
      /** The conventional name for 128+n exit codes: a convention, so always marked as inferred. */
      readonly inferredSignal: string | null;
      /** What `script` itself wrote to stderr (its own errors; the command's stderr is on the PTY). */
      readonly scriptStderr: string;
    };

export interface PtyProcessDeps {
  readonly reaper: Reaper;
  /** Opens the working directory; injectable so tests can count descriptor closes. */
  readonly bind?: (realPath: string) => BoundDirectory;
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * One PTY as one Observable. Subscribing binds the workdir, starts `script` and emits `started`, then
 * `output` chunks (UTF-8 decoded across chunk boundaries), then `exit` and completes. Unsubscribing before
 * `exit` terminates the whole session (tracked by the reaper, since a teardown cannot wait).
 *
 * `exit` is emitted on the child's `close`, not `exit`: data can arrive after the process exit, and the
 * pipes are only drained at `close`.
 */
export function ptyProcess$(spec: PtySpec, deps: PtyProcessDeps): Observable<PtyEvent> {
  return usingDescriptor(
    () => (deps.bind ?? bindDirectory)(spec.workdir),
    (bound, closeBound) => scriptProcess$(spec, bound, closeBound, deps.reaper),
  );
}

function scriptProcess$(spec: PtySpec, bound: BoundDirectory, closeBound: () => void, reaper: Reaper): Observable<PtyEvent> {
  return new Observable<PtyEvent>((subscriber) => {
    const invocation = scriptInvocation(spec.command, spec.args, spec.rows, spec.cols);
    let child;
    try {
      child = spawn(invocation.file, invocation.args, {
        cwd: bound.cwdPath,
        env: fixedEnvironment(),
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } finally {
      // The chdir happened in the forked child before exec; the descriptor has done its work.
      closeBound();
    }
    const pid = child.pid;
    if (pid === undefined) {
      // spawn reports a failed start asynchronously through 'error'; without a pid nothing runs.
      child.once('error', (err) => subscriber.error(startFailed(err)));
      return () => child.removeAllListeners();
    }
    const scriptStart = readStat(pid)?.startTime ?? 0;
    const exited$ = new ReplaySubject<void>(1);
    const stdin = new StdinWriter(child.stdin);
    const decoder = new StringDecoder('utf8');
    let stderr = '';
    let sessionId: number | null = null;
    let started = false;
    let closed = false;
    const early: PtyEvent[] = [];

    const emit = (event: PtyEvent) => {
      if (started) subscriber.next(event);
      else early.push(event);
    };

    const signaller = (sid: number): SessionSignaller => ({
      members: () => sessionMembers(sid, scriptStart).map((p) => p.pid),
      signal: signalQuietly,
    });

    const killScript = () => {
      if (!closed) signalQuietly(pid, 'SIGKILL');
    };
    const giveUp = () => {
      killScript();
      return of({ termed: 0, escalated: true, scriptKilled: true });
    };

    const terminate$ = defer(() => {
      const sid = sessionId ?? findSessionLeader(pid);
      if (sid === null) {
        // The command never reached its own session: nothing but script and its fresh child to end.
        for (const c of childrenOf(pid)) signalQuietly(c.pid, 'SIGKILL');
        killScript();
        return of({ termed: 0, escalated: true });
      }
      return terminateSession(signaller(sid), { graceMs: TERMINATE_GRACE_MS, pollMs: TERMINATE_POLL_MS });
    }).pipe(
      // With its session empty, script exits by itself with 128+n; the backstop is for a stuck script.
      switchMap((report) =>
        exited$.pipe(
          first(),
          map(() => ({ ...report, scriptKilled: false })),
          timeout({
            first: SCRIPT_EXIT_BACKSTOP_MS,
            with: () => {
              killScript();
              return of({ ...report, scriptKilled: true });
            },
          }),
        ),
      ),
      // Past the whole bound, or should /proc fail us: script goes, which hangs up its terminal.
      timeout({ first: TERMINATE_TIMEOUT_MS, with: giveUp }),
      catchError(giveUp),
      shareReplay({ bufferSize: 1, refCount: false }),
    );

    const handle: PtyHandle = {
      pid,
      get sessionId() {
        return sessionId;
      },
      write: (bytes) => stdin.write(bytes),
      terminal: () => (sessionId === null || closed ? undefined : terminalOf(sessionId)),
      terminate: () => terminate$,
    };

    const markStarted = () => {
      if (started) return;
      started = true;
      subscriber.next({ kind: 'started', handle });
      for (const event of early.splice(0)) subscriber.next(event);
    };

    // One chunk at a time, then wait for a share of a later event-loop turn. Flowing freely, libuv reads a ready
    // pipe up to 32 times in a row (64 KiB each), so 16 flooding PTYs held the host's loop ~50 ms per turn (p99
    // 170 ms). Paused, the stream reads at most its highWaterMark ahead and then stops reading (the PTY holds the
    // rest, the command blocks) until the ingest gate resumes it. Order is kept, and `close` still follows the last byte.
    const stdout = child.stdout;
    const resumeStdout = () => stdout.resume();
    let cancelResume: (() => void) | undefined;
    stdout.on('data', (chunk: Buffer) => {
      const text = decoder.write(chunk);
      emit({ kind: 'output', text, bytes: chunk.length });
      stdout.pause();
      cancelResume = ingestGate.defer(chunk.length, resumeStdout);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_SCRIPT_STDERR_CHARS) stderr = (stderr + chunk.toString('utf8')).slice(0, MAX_SCRIPT_STDERR_CHARS);
    });
    child.on('error', (err) => {
      if (!started) subscriber.error(startFailed(err));
    });
    child.on('exit', () => exited$.next());
    child.on('close', (code, signal) => {
      closed = true;
      cancelResume?.();
      if (sessionId !== null) orphanGuard.release(sessionId);
      clearTimeout(lookupTimer);
      markStarted();
      const rest = decoder.end();
      if (rest.length > 0) subscriber.next({ kind: 'output', text: rest, bytes: 0 });
      subscriber.next({
        kind: 'exit',
        exitCode: code,
        signal,
        inferredSignal: inferSignalFromExitCode(code),
        scriptStderr: stderr,
      });
      subscriber.complete();
    });

    // Find the session leader: script forks, the child calls setsid() and execs the command.
    const lookupDeadline = Date.now() + SESSION_LEADER_LOOKUP_MS;
    let lookupTimer: NodeJS.Timeout | undefined;
    let nextFullScan = Date.now() + SESSION_LEADER_FULL_SCAN_MS;
    const lookup = () => {
      if (closed) return;
      // The child almost always got one of the next few pids: probe those on every poll and scan all of /proc
      // only now and then (a full scan blocks the event loop for milliseconds).
      const fullScan = Date.now() >= nextFullScan;
      if (fullScan) nextFullScan = Date.now() + SESSION_LEADER_FULL_SCAN_MS;
      sessionId = findSessionLeader(pid, !fullScan);
      // Kills the session should the host die without closing us (see orphan-guard.ts).
      if (sessionId !== null) orphanGuard.watch(sessionId);
      if (sessionId !== null || Date.now() >= lookupDeadline) markStarted();
      else lookupTimer = setTimeout(lookup, SESSION_LEADER_POLL_MS);
    };
    lookup();

    return () => {
      clearTimeout(lookupTimer);
      if (!closed) reaper.track(terminate$);
    };
  });
}

function startFailed(err: Error): PtyError {
  return new PtyError('spawn_failed', `the terminal could not be started: ${err.message}`);
}

/** The child of script once it has called setsid(): its pid is then its session id. */
function findSessionLeader(scriptPid: number, nearOnly = false): number | null {
  for (const c of childrenOf(scriptPid, nearOnly)) {
    if (c.sessionId === c.pid) return c.pid;
  }
  return null;
}
