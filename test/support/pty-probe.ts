import type { Subscription } from 'rxjs';
import { Reaper } from '../../src/engine/reaper.js';
import type { ExitEvent, PtyEvent } from '../../src/streams/pty-events.js';
import { ptyProcess$, type PtyHandle, type PtyProcessDeps, type PtySpec } from '../../src/streams/pty-process.js';

export type { ExitEvent };

/** Drives one real PTY in a test: collects output, waits for text or exit with a timeout. */
export class PtyProbe {
  text = '';
  exit: ExitEvent | undefined;
  /** The session's lingering members as last reported after the exit. */
  lingering: Extract<PtyEvent, { kind: 'members' }>['lingering'] | undefined;
  completed = false;
  error: unknown;
  handle: PtyHandle | undefined;
  private readonly subscription: Subscription;
  private waiters: Array<() => void> = [];

  constructor(
    spec: Partial<PtySpec> & { command: string },
    readonly reaper = new Reaper(),
    deps: Omit<PtyProcessDeps, 'reaper'> = {},
  ) {
    const full = { args: [], workdir: '/tmp', rows: 40, cols: 120, ...spec };
    this.subscription = ptyProcess$(full, { ...deps, reaper }).subscribe({
      next: (e) => {
        if (e.kind === 'started') this.handle = e.handle;
        else if (e.kind === 'output') this.text += e.text;
        else if (e.kind === 'exit') this.exit = e;
        else this.lingering = e.lingering;
        this.wake();
      },
      error: (err) => {
        this.error = err;
        this.wake();
      },
      complete: () => {
        this.completed = true;
        this.wake();
      },
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  until<T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for ${what}; output so far: ${JSON.stringify(this.text.slice(-500))}`,
            ),
          ),
        timeoutMs,
      );
      const test = () => {
        if (this.error !== undefined) {
          clearTimeout(timer);
          reject(this.error);
          return;
        }
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else this.waiters.push(test);
      };
      test();
    });
  }

  started(): Promise<PtyHandle> {
    return this.until(() => this.handle, 'start');
  }

  output(pattern: RegExp | string, timeoutMs?: number): Promise<string> {
    const matches = () => (typeof pattern === 'string' ? this.text.includes(pattern) : pattern.test(this.text));
    return this.until(() => (matches() ? this.text : undefined), `output ${String(pattern)}`, timeoutMs);
  }

  exited(timeoutMs?: number): Promise<ExitEvent> {
    return this.until(() => this.exit, 'exit', timeoutMs);
  }

  /** The stream completes when the whole terminal session is empty. */
  sessionEmpty(timeoutMs?: number): Promise<true> {
    return this.until(() => (this.completed ? true : undefined), 'the session to be empty', timeoutMs);
  }

  async write(text: string): Promise<number> {
    const handle = await this.started();
    return handle.write(Buffer.from(text, 'utf8'));
  }

  /** Unsubscribes (which terminates a running PTY) and waits for the termination to finish. */
  async dispose(): Promise<void> {
    this.subscription.unsubscribe();
    await this.reaper.drain();
  }
}

/** Runs a command to its end and returns its output and exit. */
export async function runToExit(
  spec: Partial<PtySpec> & { command: string },
  timeoutMs = 10_000,
  deps: Omit<PtyProcessDeps, 'reaper'> = {},
): Promise<{ text: string; exit: ExitEvent }> {
  const probe = new PtyProbe(spec, new Reaper(), deps);
  try {
    const exit = await probe.exited(timeoutMs);
    return { text: probe.text, exit };
  } finally {
    await probe.dispose();
  }
}
