import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { defer, of } from 'rxjs';
import { match } from 'ts-pattern';
import { type ForkTurns, inForkTurn } from '../streams/fork-turns.js';
import { PtyError } from '../errors.js';
import { parseGrepOutput } from './grep-output.js';
import type { GrepMatch } from './grep-request.js';
import { type BudgetVerdict, type CpuBudget, watchCpuBudget } from './cpu-budget.js';

export interface GrepRunOptions {
  readonly grepPath: string;
  /** `null`: grep forks at once. Default: the host's one-start-per-turn queue, which PTY starts go through too. */
  readonly forkTurns?: ForkTurns | null;
  /** grep's CPU time and the wall timeout (see cpu-budget.ts). */
  readonly budget: CpuBudget;
  readonly maxStdoutChars: number;
  readonly maxStderrChars: number;
}

/** One grep process searching one text. */
export interface GrepRun {
  /**
   * Settles only once the process is gone (exit seen, pipes closed), so whoever waits on it knows no grep
   * is left. Resolves with the complete matching lines; rejects with a PtyError.
   */
  readonly done: Promise<GrepMatch[]>;
  /** SIGKILLs grep; `done` rejects with `reason` unless an earlier reason was recorded (first writer wins). */
  stop(reason: PtyError): void;
}

/**
 * Nothing of the host's environment reaches grep. C.UTF-8 makes `.` and `-i` work on characters rather
 * than bytes, the same on every machine whatever the host's locale.
 */
const GREP_ENVIRONMENT: Readonly<Record<string, string>> = { LC_ALL: 'C.UTF-8', PATH: '/usr/bin:/bin' };

/** Why grep was stopped: an error to report, or its output reaching the bound (then what is complete is kept). */
type GrepStopReason = PtyError | 'stdout_full';

/**
 * Runs `grepPath args` with `input` (the text's UTF-8) on stdin; `input` must stay unchanged until `done` settles.
 * Output past `maxStdoutChars` stops grep and keeps the complete lines so far: a prefix of the matches, as a smaller
 * `-m` would give. stderr past `maxStderrChars` is dropped.
 *
 * grep forks in a turn of the host's loop that no other start has had (ForkTurns): a fork holds the host's thread
 * until the exec, and searches started beside PTYs forked back to back. Stopped while it waits for that turn, grep
 * never starts and `done` rejects with the reason.
 */
export function runGrep(args: readonly string[], input: Uint8Array, options: GrepRunOptions): GrepRun {
  let started: GrepRun | undefined;
  let giveUp: (reason: PtyError) => void = () => {};
  const done = new Promise<GrepMatch[]>((resolve, reject) => {
    const waiting = inForkTurn(
      defer(() => of(startGrep(args, input, options))),
      options.forkTurns,
    ).subscribe((run) => {
      started = run;
      run.done.then(resolve, reject);
    });
    giveUp = (reason) => {
      waiting.unsubscribe();
      reject(reason);
    };
  });
  return { done, stop: (reason) => (started === undefined ? giveUp(reason) : started.stop(reason)) };
}

function startGrep(args: readonly string[], input: Uint8Array, options: GrepRunOptions): GrepRun {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(options.grepPath, args, { env: GREP_ENVIRONMENT, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    return { done: Promise.reject(spawnFailed(options.grepPath, err)), stop: () => {} };
  }

  let reason: GrepStopReason | undefined;
  let spawnError: Error | undefined;
  let exited = false;
  let stdout = '';
  let stderr = '';

  const stop = (why: GrepStopReason) => {
    if (exited) return;
    reason ??= why;
    child.kill('SIGKILL');
  };

  const stopWatching =
    child.pid === undefined
      ? () => {}
      : watchCpuBudget(child.pid, options.budget, (verdict) => stop(overBudget(verdict, options.budget)));

  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    if (reason === 'stdout_full') return;
    const room = options.maxStdoutChars - stdout.length;
    stdout += chunk.length > room ? chunk.slice(0, room) : chunk;
    if (chunk.length > room) stop('stdout_full');
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk.slice(0, Math.max(0, options.maxStderrChars - stderr.length));
  });
  child.stdin.on('error', (err: NodeJS.ErrnoException) => {
    // grep -m exits as soon as it has enough matches, closing the pipe under the rest of the text.
    if (err.code === 'EPIPE') return;
    stop(new PtyError('search_failed', `sending the text to grep failed (${err.message}); try the search again.`));
  });
  child.on('error', (err) => {
    // Spawn failures arrive here, followed by 'close'; a failed kill arrives here too and changes nothing.
    if (child.pid === undefined) spawnError ??= err;
  });
  child.stdin.end(input);

  const done = new Promise<GrepMatch[]>((resolve, reject) => {
    child.on('close', (code, signal) => {
      exited = true;
      stopWatching();
      try {
        resolve(outcome(code, signal));
      } catch (err) {
        reject(err);
      }
    });
  });

  function outcome(code: number | null, signal: NodeJS.Signals | null): GrepMatch[] {
    if (spawnError) throw spawnFailed(options.grepPath, spawnError);
    if (reason instanceof PtyError) throw reason;
    if (reason === 'stdout_full' || code === 0) return parseGrepOutput(stdout);
    if (code === 1) return [];
    if (code === 2) {
      throw new PtyError(
        'invalid_input',
        `grep rejected the pattern: ${stderr.trim() || 'no reason given'}. Fix the regular expression (POSIX extended syntax, as grep -E reads it).`,
      );
    }
    const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
    throw new PtyError(
      'search_failed',
      `grep ${how}${stderr.trim() ? `: ${stderr.trim()}` : ''}; try the search again.`,
    );
  }

  return { done, stop };
}

function overBudget(verdict: BudgetVerdict, budget: CpuBudget): PtyError {
  const cpu = Math.round(verdict.cpuMs);
  const elapsed = Math.round(verdict.elapsedMs);
  return match(verdict.kind)
    .with(
      'wall',
      () =>
        new PtyError(
          'busy',
          `grep was stopped after ${elapsed} ms (GREP_WALL_TIMEOUT_MS = ${budget.wallTimeoutMs}) having had only ${cpu} ms of CPU time: the machine is too busy to finish this search now. Nothing is wrong with the pattern; try it again.`,
        ),
    )
    .with(
      'cpu',
      () =>
        new PtyError(
          'pattern_too_expensive',
          `the pattern was stopped after ${cpu} ms of grep's CPU time (GREP_CPU_BUDGET_MS = ${budget.budgetMs}, ${elapsed} ms in all): it is too expensive to match against this output. ` +
            'Use a simpler pattern: avoid back-references like \\1 and nested repetition like (a+)+, and prefer plain words or anchored literals.',
        ),
    )
    .exhaustive();
}

function spawnFailed(grepPath: string, err: unknown): PtyError {
  const message = err instanceof Error ? err.message : String(err);
  return new PtyError(
    'spawn_failed',
    `could not start ${grepPath} to search (${message}); GNU grep must be installed at that path.`,
  );
}
