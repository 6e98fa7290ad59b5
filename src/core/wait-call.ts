import {
  defer,
  endWith,
  filter,
  firstValueFrom,
  fromEvent,
  merge,
  NEVER,
  of,
  type SchedulerLike,
  type Subscription,
  timer,
} from 'rxjs';
import { PtyError } from '../errors.js';
import {
  DEFAULT_WAIT_TIMEOUT_MS,
  MAX_PARTIAL_MATCH_CHARS,
  MAX_WAIT_OUTPUT_LINES,
  TERMINATE_TIMEOUT_MS,
} from '../limits.js';
import { idleActivityOutcomes, waitFor, type WaitOutcome } from '../operators/wait-for.js';
import { compileLinearPattern, type LinearPattern } from '../patterns/linear-pattern.js';
import { markOf, OutputScanner, type OutputMark, type OutputMatch } from '../patterns/output-scanner.js';
import type { WaitReport } from '../protocol/tool-results.js';
import { OutputBuffer } from '../buffer/output-buffer.js';
import { ShapeKeeper } from '../shapes/shape-keeper.js';
import type { WaitInput } from '../protocol/wait-schema.js';
import type { ScreenRowMatch } from '../screen/screen-row-scanner.js';
import type { CursorMark } from './cursor-marks.js';
import { ALTERNATE_NOTE, screenIfFullScreen } from './screen-read.js';
import { screenMatches } from './screen-wait.js';
import type { PtySession } from './pty-session.js';
import { resultLinesFrom } from './read-cursor.js';
import { viewMatch } from './read-view.js';

/** What a wait's pattern matched: a line of the output, or a row of a full-screen program's screen. */
type WaitMatchFound = OutputMatch | ScreenRowMatch;

const reportedMatch = (
  found: WaitMatchFound,
  buffer: PtySession['buffer'],
): Pick<WaitReport, 'match' | 'screenMatch'> =>
  'screenRow' in found
    ? { screenMatch: { screenRow: found.screenRow, text: found.text } }
    : { match: viewMatch(found, buffer.headDropped(found.line)) };

/** A wait as given, checked and compiled once, before anything is written. */
export interface WaitSpec {
  readonly pattern?: LinearPattern;
  readonly quietMs?: number;
  readonly timeoutMs: number;
}

export function compileWait(tool: string, input: WaitInput | undefined): WaitSpec | undefined {
  if (input === undefined) return undefined;
  return {
    ...(input.pattern === undefined
      ? {}
      : { pattern: compileLinearPattern(`${tool}: wait.pattern`, input.pattern, input.ignoreCase ?? false) }),
    ...(input.quietMs === undefined ? {} : { quietMs: input.quietMs }),
    timeoutMs: input.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
  };
}

export function refuseIgnoreCaseAlone(tool: string, input: WaitInput | undefined): void {
  if (input?.ignoreCase !== undefined && input.pattern === undefined) {
    throw new PtyError('invalid_input', `${tool}: wait.ignoreCase only applies with wait.pattern. Nothing was done.`);
  }
}

/** What the kept scanner reads and looks for: made at the first wait's end, then the same for every one after. */
let keptScannerInput: { readonly buffer: OutputBuffer; readonly pattern: LinearPattern } | undefined;

/**
 * A pattern wait's step, its quiet clock and its scanner, never subscribed, made anew as each wait ends (see
 * ShapeKeeper): a pending wait's scan runs after every chunk of its PTY, inlined into the session's tap, and no wait's
 * objects outlived it, so the collection after each one threw that code away (docs/perf-journal.md, twenty-ninth
 * session). Only the step and its scanner are made anew: the empty buffer and the pattern are there for their
 * classes, which no wait changes, so each answer does not wait for a new buffer. Exported for tests.
 */
export const waitShapes = new ShapeKeeper((): readonly object[] => {
  keptScannerInput ??= { buffer: new OutputBuffer(), pattern: compileLinearPattern('waitShapes', 'kept', false) };
  const { buffer, pattern } = keptScannerInput;
  return [idleActivityOutcomes(new OutputScanner(buffer, pattern, markOf(buffer)))];
});

/**
 * How a wait ends once its outcome is out (firstThenRelease), in a later run that `schedule` gives (the next turn of
 * the loop): the kept wait classes are renewed while the ended wait still holds its step and scanner, then its
 * inputs are let go. Neither is the answer's to wait for (~0.1 ms on a cold path), and an answer is what an
 * interactive call waits on (docs/perf-journal.md, thirtieth session).
 */
function endAfterTheAnswer(schedule: (run: () => void) => unknown): (letGo: () => void) => void {
  return (letGo) =>
    schedule(() => {
      waitShapes.renew();
      letGo();
    });
}

/** A wait already listening: `done` settles with its result; `cancel` lets go (when the write it waits on failed). */
export interface PendingWait {
  readonly done: Promise<WaitReport>;
  cancel(): void;
}

/**
 * Starts listening to the PTY's activity now: anything that reaches the session from a later turn of the loop on is
 * heard (see actThenWait). `mark` is where the call's own output begins (default: where the output stands now).
 */
export function startWait(
  session: PtySession,
  spec: WaitSpec,
  signal: AbortSignal | undefined,
  options: { mark?: CursorMark; maxLines?: number; scheduler?: SchedulerLike } = {},
): PendingWait {
  const { buffer } = session;
  const mark = options.mark ?? markOf(buffer);
  const startedAt = performance.now();
  const scanner = spec.pattern ? new OutputScanner(buffer, spec.pattern, mark) : undefined;
  // A mark behind the output (a cursor's) may have its match already: the output between it and now is not new
  // activity, so it is looked at once here.
  const already = options.mark === undefined ? undefined : scanner?.scan();
  let subscription: Subscription | undefined;
  const done = new Promise<WaitOutcome<WaitMatchFound>>((resolve, reject) => {
    if (already !== undefined) {
      waitShapes.renew();
      resolve({ reason: 'match', match: already });
      return;
    }
    subscription = session.activity$
      .pipe(
        waitFor<WaitMatchFound>({
          ...(scanner ? { scanner } : {}),
          ...(spec.pattern ? { matches$: screenMatches(session, spec.pattern, options.mark) } : {}),
          outputBefore: options.mark !== undefined && outputSince(buffer, mark),
          ...(spec.quietMs === undefined ? {} : { quietMs: spec.quietMs }),
          timeoutMs: spec.timeoutMs,
          abort$:
            signal === undefined
              ? NEVER
              : defer(() => (signal.aborted ? of(signal.reason) : fromEvent(signal, 'abort'))),
          ...(options.scheduler ? { scheduler: options.scheduler } : {}),
          releaseInputs: endAfterTheAnswer(
            options.scheduler ? (run) => options.scheduler?.schedule(run) : setImmediate,
          ),
        }),
      )
      .subscribe({ next: resolve, error: reject });
  }).then(async (outcome) => {
    // Killed: the answer waits for the program's end, so that it says how it ended (status, exit code) as pty_kill does.
    if (outcome.reason === 'killed') await endOf(session, TERMINATE_TIMEOUT_MS, options.scheduler);
    const report = waitResult(
      session,
      mark,
      outcome,
      Math.round(performance.now() - startedAt),
      Math.min(options.maxLines ?? MAX_WAIT_OUTPUT_LINES, MAX_WAIT_OUTPUT_LINES),
    );
    // A full-screen program's answer is what it shows, not its drawing codes: the wait brings the screen too.
    const screen = await screenIfFullScreen(session);
    return screen === undefined ? report : { ...report, screen, screenNote: ALTERNATE_NOTE };
  });
  return {
    done,
    cancel: () => {
      waitShapes.renew();
      subscription?.unsubscribe();
    },
  };
}

/** Whether output came after `mark`: a line finished since, or the unfinished line changed. */
function outputSince(buffer: PtySession['buffer'], mark: OutputMark): boolean {
  return buffer.completedLines >= mark.line || buffer.partialTail(MAX_PARTIAL_MATCH_CHARS) !== mark.partialTail;
}

/** Settles once the PTY's program has ended (its status final), or after `boundMs`, whichever comes first. */
function endOf(session: PtySession, boundMs: number, scheduler?: SchedulerLike): Promise<unknown> {
  if (!session.acceptsInput) return Promise.resolve();
  // The activity ends with the PTY (after its exit, or without one when its stream failed): either way it is over.
  const ended$ = session.activity$.pipe(
    filter((activity) => activity.kind === 'exit'),
    endWith(undefined),
  );
  return firstValueFrom(merge(ended$, timer(boundMs, scheduler)), { defaultValue: undefined });
}

/**
 * Act, then subscribe the wait in the same synchronous run: whatever `act` causes (a process's start and output, the
 * answer to a write, its exit) reaches the session only in a later turn of the loop, through a pipe's read or a
 * timer, so the wait still hears all of it; and `act`'s synchronous part (a spawn's fork, a write to stdin) no longer
 * waits for the wait's setup, which then runs while the process starts or answers (0.2–0.3 ms of a `pty_spawn` in
 * Bun, docs/perf-journal.md). Should `act` fail, the wait lets go. `waited` is undefined without a wait.
 */
export async function actThenWait<T>(
  session: PtySession,
  spec: WaitSpec | undefined,
  signal: AbortSignal | undefined,
  act: () => Promise<T>,
  options?: { mark?: OutputMark },
): Promise<{ value: T; waited: WaitReport | undefined }> {
  const acting = act();
  const pending = spec && startWait(session, spec, signal, options);
  let value: T;
  try {
    value = await acting;
  } catch (err) {
    pending?.cancel();
    throw err;
  }
  return { value, waited: pending ? await pending.done : undefined };
}

function waitResult(
  session: PtySession,
  mark: OutputMark,
  outcome: WaitOutcome<WaitMatchFound>,
  waitedMs: number,
  maxLines: number,
): WaitReport {
  const { buffer } = session;
  const arrived = buffer.totalLines - mark.line + 1;
  const from = Math.max(mark.line, buffer.totalLines - maxLines + 1, buffer.firstLine);
  const lines = resultLinesFrom(buffer, from, maxLines);
  const droppedLines = Math.max(0, buffer.firstLine - mark.line);
  const omittedLines = Math.max(0, arrived - lines.length - droppedLines);
  return {
    reason: outcome.reason,
    waitedMs,
    ...(outcome.reason === 'match' ? reportedMatch(outcome.match, buffer) : {}),
    status: session.status,
    exitCode: session.exitCode,
    lines,
    ...(omittedLines > 0
      ? { omittedLines, outputCursor: session.cursors.handOut(buffer, Math.max(mark.line, buffer.firstLine)) }
      : {}),
    ...(droppedLines > 0 ? { droppedLines } : {}),
    cursor: session.cursors.handOut(buffer, buffer.completedLines + 1),
  };
}
