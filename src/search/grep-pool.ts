import { PtyError } from '../errors.js';
import { GREP_PATH } from '../engine/system-paths.js';
import {
  GREP_CPU_BUDGET_MS,
  GREP_CPU_CHECK_MIN_MS,
  GREP_QUEUE_TIMEOUT_MS,
  GREP_WALL_TIMEOUT_MS,
  MAX_GREP_QUEUE,
  MAX_GREP_STDERR_CHARS,
  MAX_GREP_STDOUT_CHARS,
  MAX_GREP_WORKERS,
} from '../limits.js';
import { grepArguments, validateGrepRequest, type GrepMatch, type GrepRequest } from './grep-request.js';
import { runGrep, type GrepRun, type GrepRunOptions } from './grep-run.js';
import { SearchTextEncoder } from './search-text-encoder.js';

export type { GrepMatch, GrepRequest } from './grep-request.js';

export interface GrepPoolOptions {
  readonly maxWorkers?: number;
  readonly maxQueue?: number;
  readonly queueTimeoutMs?: number;
  /** grep's CPU time before it is stopped as too expensive. */
  readonly cpuBudgetMs?: number;
  /** Wall time before it is stopped however little CPU it had. */
  readonly wallTimeoutMs?: number;
  readonly maxStdoutChars?: number;
  readonly maxStderrChars?: number;
  /** Tests point this at a missing file to see a spawn failure. */
  readonly grepPath?: string;
  /** Called whenever the number of running or waiting searches changes (for tests and diagnostics). */
  readonly onLoadChange?: (load: GrepPoolLoad) => void;
}

export interface GrepPoolLoad {
  readonly running: number;
  readonly queued: number;
}

interface Waiting {
  readonly request: GrepRequest;
  readonly resolve: (matches: GrepMatch[]) => void;
  readonly reject: (err: unknown) => void;
  /** Removes its queue timer and abort listener. */
  readonly release: () => void;
}

/**
 * Runs searches with the system grep, at most `maxWorkers` processes at once, the rest waiting in a bounded
 * FIFO queue for a bounded time; each grep is SIGKILLed once it has used `cpuBudgetMs` of CPU time, or after
 * `wallTimeoutMs` however little it had (see cpu-budget.ts). Every promise it returns settles,
 * and `close()` resolves only once no grep it started is left.
 *
 * Rejections are PtyErrors: 'invalid_input' (bad request, or grep's own complaint about the pattern),
 * 'busy' (queue full, waited too long, or grep starved of CPU until the wall timeout), 'pattern_too_expensive', 'closing' (closed or aborted; an abort
 * reason that is a PtyError is passed on as is), 'spawn_failed', 'search_failed'. Output past
 * `maxStdoutChars` is not an error: grep is stopped and the complete lines so far are returned.
 *
 * @example
 * const pool = new GrepPool();
 * await pool.search({ text: 'a\nerror: x\n', pattern: 'error', ignoreCase: false, maxMatches: 10 });
 * // [{ lineNumber: 2, text: 'error: x' }]
 */
export class GrepPool {
  private readonly maxWorkers: number;
  private readonly maxQueue: number;
  private readonly queueTimeoutMs: number;
  private readonly runOptions: GrepRunOptions;
  private readonly onLoadChange: ((load: GrepPoolLoad) => void) | undefined;
  private readonly queue: Waiting[] = [];
  /** Each running grep, with the promise that settles after its bookkeeping is done. */
  private readonly running = new Map<GrepRun, Promise<void>>();
  private readonly encoder = new SearchTextEncoder();
  private closed: Promise<void> | undefined;

  constructor(options: GrepPoolOptions = {}) {
    this.maxWorkers = options.maxWorkers ?? MAX_GREP_WORKERS;
    this.maxQueue = options.maxQueue ?? MAX_GREP_QUEUE;
    this.queueTimeoutMs = options.queueTimeoutMs ?? GREP_QUEUE_TIMEOUT_MS;
    this.runOptions = {
      grepPath: options.grepPath ?? GREP_PATH,
      budget: {
        budgetMs: options.cpuBudgetMs ?? GREP_CPU_BUDGET_MS,
        wallTimeoutMs: options.wallTimeoutMs ?? GREP_WALL_TIMEOUT_MS,
        minCheckMs: GREP_CPU_CHECK_MIN_MS,
      },
      maxStdoutChars: options.maxStdoutChars ?? MAX_GREP_STDOUT_CHARS,
      maxStderrChars: options.maxStderrChars ?? MAX_GREP_STDERR_CHARS,
    };
    this.onLoadChange = options.onLoadChange;
  }

  get load(): GrepPoolLoad {
    return { running: this.running.size, queued: this.queue.length };
  }

  /** The matching lines, in order, at most `maxMatches`; rejects with a PtyError. */
  search(request: GrepRequest): Promise<GrepMatch[]> {
    if (this.closed) return Promise.reject(closingError());
    try {
      validateGrepRequest(request);
    } catch (err) {
      return Promise.reject(err);
    }
    if (request.signal?.aborted) return Promise.reject(abortError(request.signal));
    if (this.running.size < this.maxWorkers && this.queue.length === 0) return this.start(request);
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new PtyError(
          'busy',
          `the search queue is full: ${this.running.size} searches are running and ${this.queue.length} are waiting (MAX_GREP_QUEUE = ${this.maxQueue}). Wait for earlier searches to finish, then try again.`,
        ),
      );
    }
    return this.enqueue(request);
  }

  /**
   * Rejects waiting searches with 'closing', kills running greps (their searches reject with 'closing') and
   * resolves once every one has exited. Idempotent; searches after it reject at once.
   */
  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    for (const waiting of this.queue.splice(0)) {
      waiting.release();
      waiting.reject(closingError());
    }
    this.reportLoad();
    for (const run of this.running.keys()) run.stop(closingError());
    await Promise.all(this.running.values());
  }

  private enqueue(request: GrepRequest): Promise<GrepMatch[]> {
    return new Promise<GrepMatch[]>((resolve, reject) => {
      const { signal } = request;
      const leave = (err: PtyError) => {
        const index = this.queue.indexOf(waiting);
        if (index < 0) return;
        this.queue.splice(index, 1);
        waiting.release();
        this.reportLoad();
        reject(err);
      };
      const timer = setTimeout(
        () =>
          leave(
            new PtyError(
              'busy',
              `all ${this.maxWorkers} search workers stayed busy for ${this.queueTimeoutMs} ms (GREP_QUEUE_TIMEOUT_MS), so the search did not start. Try again shortly; simpler patterns finish sooner.`,
            ),
          ),
        this.queueTimeoutMs,
      );
      const onAbort = () => leave(abortError(signal as AbortSignal));
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiting: Waiting = {
        request,
        resolve,
        reject,
        release: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      this.queue.push(waiting);
      this.reportLoad();
    });
  }

  private start(request: GrepRequest): Promise<GrepMatch[]> {
    const input = this.encoder.encode(request.text);
    const run = runGrep(grepArguments(request), input.bytes, this.runOptions);
    const { signal } = request;
    const onAbort = () => run.stop(abortError(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    const finished = run.done.then(
      () => {},
      () => {},
    );
    this.running.set(
      run,
      finished.then(() => {
        input.release();
        signal?.removeEventListener('abort', onAbort);
        this.running.delete(run);
        this.reportLoad();
        this.startNext();
      }),
    );
    this.reportLoad();
    return run.done;
  }

  private startNext(): void {
    if (this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    next.release();
    this.start(next.request).then(next.resolve, next.reject);
  }

  private reportLoad(): void {
    this.onLoadChange?.(this.load);
  }
}

function closingError(): PtyError {
  return new PtyError(
    'closing',
    'the search was cancelled because local-pty is shutting down; nothing more can be searched.',
  );
}

/** A PtyError given as the abort reason (e.g. 'owner_deleted') is passed on as is. */
function abortError(signal: AbortSignal): PtyError {
  if (signal.reason instanceof PtyError) return signal.reason;
  return new PtyError('closing', 'the search was cancelled before it finished; run it again if it is still needed.');
}
