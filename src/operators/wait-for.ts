import { map, merge, NEVER, type Observable, type OperatorFunction, type SchedulerLike, Subscriber, timer } from 'rxjs';
import { match } from 'ts-pattern';
import { ChunkSubscriber, throughSubscriber } from './chunk-subscriber.js';
import { firstThenRelease } from './first-then-release.js';
import { UNFINISHED_LINE_SETTLE_MS } from '../limits.js';
import { QuietClock } from './quiet-clock.js';

/** What a PTY tells its waiters: a chunk reached the buffer, the PTY is being stopped (and why), it exited. */
export type PtyActivity =
  | { readonly kind: 'output' }
  | { readonly kind: 'stopping'; readonly reason: 'kill' | 'timeout' | 'owner-deleted' | 'close' }
  | { readonly kind: 'exit' };

/** Why a wait ended, as the model reads it. */
export type WaitReason = 'match' | 'quiet' | 'exit' | 'timeout' | 'aborted' | 'killed' | 'owner_deleted' | 'closed';

export type WaitOutcome<M> =
  | { readonly reason: 'match'; readonly match: M }
  | { readonly reason: Exclude<WaitReason, 'match'> };

/** Looks at the output after each chunk (OutputScanner is one). */
export interface Scanner<M> {
  /** The first match in the output that arrived since the last call, if any. */
  scan(): M | undefined;
  /** Some output was left for `settle`: it is called once no chunk has come for the settle interval. */
  readonly unsettled?: boolean;
  settle?(): M | undefined;
}

export interface WaitForOptions<M> {
  /** Called after each chunk. */
  readonly scanner?: Scanner<M>;
  /** End once no chunk has arrived for this long, counted from the latest chunk (so never before the first one). */
  readonly quietMs?: number;
  /**
   * Output the wait counts came before it began (a wait from a cursor): the quiet clock runs from the start, as if
   * that output were its first chunk.
   */
  readonly outputBefore?: boolean;
  readonly timeoutMs: number;
  /** Matches found apart from the output's chunks (a full-screen program's screen rows, screen-wait.ts). */
  readonly matches$?: Observable<M>;
  /** Emits when the caller gives up (the tool call's abort signal). */
  readonly abort$?: Observable<unknown>;
  readonly scheduler?: SchedulerLike;
  /**
   * How the inputs are let go once the outcome is out (see firstThenRelease): at once by default; a call that answers
   * a model lets them go in a later turn, after its answer.
   */
  readonly releaseInputs?: (letGo: () => void) => void;
}

/**
 * Waits on a PTY's activity for the first of: a match, quiet, exit, timeout, abort, or the PTY being stopped
 * (killed, its owner deleted, the plugin closing), then emits that one outcome and completes, releasing every
 * input (at once, or as `releaseInputs` schedules it). A PTY stopped by its own timeoutSeconds is left to exit: that
 * ends the wait as `exit`. A source that completes (the PTY ended before or while the wait subscribed) ends it as
 * `exit` too.
 *
 * Races, settled by order: a chunk that carries both the match and the exit ends as `match` (the output event
 * comes before the exit event); a chunk at the very instant the quiet or timeout timer fires wins over it.
 *
 * @example
 * session.activity$.pipe(waitFor({ scanner, quietMs: 500, timeoutMs: 30_000, abort$: fromEvent(signal, 'abort') }))
 */
export function waitFor<M>(options: WaitForOptions<M>): OperatorFunction<PtyActivity, WaitOutcome<M>> {
  const {
    scanner,
    quietMs,
    timeoutMs,
    abort$ = NEVER,
    matches$ = NEVER,
    scheduler,
    outputBefore = false,
    releaseInputs = releaseAtOnce,
  } = options;
  return (activity$) => {
    // One subscription does the matching and the quiet clock: every chunk passes through it (see ActivityOutcomes).
    const fromActivity$ = activity$.pipe(
      throughSubscriber<PtyActivity, WaitOutcome<M>>(
        (destination) => new ActivityOutcomes(destination, scanner, quietMs, scheduler, outputBefore),
      ),
    );
    const timeout$ = timer(timeoutMs, scheduler).pipe(map(() => ({ reason: 'timeout' }) as const));
    const aborted$ = abort$.pipe(map(() => ({ reason: 'aborted' }) as const));
    const matched$ = matches$.pipe(map((match): WaitOutcome<M> => ({ reason: 'match', match })));
    return merge(fromActivity$, matched$, timeout$, aborted$).pipe(firstThenRelease(releaseInputs));
  };
}

const releaseAtOnce = (letGo: () => void): void => letGo();

/**
 * The outcomes of a PTY's activity events, those that end the wait, then `exit` when the activity ends; with
 * `quietMs`, `quiet` once no output has come for that long (a QuietClock noted at each chunk). What `map`, `filter`,
 * `endWith` and a shared, filtered quiet timer would do, as a class, since every chunk passes through it (see
 * tapHandler). A scanner that throws ends the wait with its error.
 */
class ActivityOutcomes<M> extends ChunkSubscriber<PtyActivity, WaitOutcome<M>> {
  private readonly clock: QuietClock | undefined;

  /** Runs the scanner's `settle` once the output pauses (made when first needed). */
  private settleClock: QuietClock | undefined;

  constructor(
    destination: Subscriber<WaitOutcome<M>>,
    private readonly scanner: Scanner<M> | undefined,
    quietMs: number | undefined,
    private readonly scheduler: SchedulerLike | undefined,
    outputBefore: boolean,
  ) {
    super(destination);
    this.clock = quietMs === undefined ? undefined : new QuietClock(quietMs, this.quiet.bind(this), scheduler);
    if (outputBefore) this.clock?.note();
  }

  protected onValue(event: PtyActivity): void {
    const outcome = outcomeOf(event, this.scanner);
    if (outcome !== undefined) this.destination.next(outcome);
    else if (event.kind === 'output') {
      this.clock?.note();
      if (this.scanner?.unsettled === true) {
        this.settleClock ??= new QuietClock(UNFINISHED_LINE_SETTLE_MS, this.settle.bind(this), this.scheduler);
        this.settleClock.note();
      }
    }
  }

  protected override _complete(): void {
    this.destination.next(EXIT_OUTCOME);
    super._complete();
  }

  override unsubscribe(): void {
    this.clock?.stop();
    this.settleClock?.stop();
    super.unsubscribe();
  }

  private settle(): void {
    const found = this.scanner?.settle?.();
    if (found !== undefined) this.destination.next({ reason: 'match', match: found });
  }

  private quiet(): void {
    this.destination.next(QUIET_OUTCOME);
  }
}

/**
 * A wait's step that is never subscribed, with its quiet clock, reading `scanner`: kept alive between waits for its
 * classes (see waitShapes in wait-call.ts).
 */
export function idleActivityOutcomes<M>(scanner: Scanner<M>): object {
  return new ActivityOutcomes<M>(new Subscriber(), scanner, UNFINISHED_LINE_SETTLE_MS, undefined, false);
}

const QUIET_OUTCOME = { reason: 'quiet' } as const;
const EXIT_OUTCOME = { reason: 'exit' } as const;

function outcomeOf<M>(event: PtyActivity, scanner: Scanner<M> | undefined): WaitOutcome<M> | undefined {
  // Output, the event of every chunk, goes the short way (see PtySession.onEvent); the rest is matched.
  if (event.kind === 'output') {
    const found = scanner?.scan();
    return found === undefined ? undefined : { reason: 'match', match: found };
  }
  return match(event)
    .with({ kind: 'stopping' }, ({ reason }): WaitOutcome<M> | undefined =>
      match(reason)
        .with('kill', () => ({ reason: 'killed' }) as const)
        .with('owner-deleted', () => ({ reason: 'owner_deleted' }) as const)
        .with('close', () => ({ reason: 'closed' }) as const)
        .with('timeout', () => undefined)
        .exhaustive(),
    )
    .with({ kind: 'exit' }, () => EXIT_OUTCOME)
    .exhaustive();
}
