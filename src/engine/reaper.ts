import type { Observable } from 'rxjs';

/**
 * Keeps every termination that is still running, so that closing the plugin can wait for all of them.
 * A termination started from a synchronous teardown has no one else to await it.
 */
export class Reaper {
  private readonly running = new Set<Promise<void>>();

  track(termination: Observable<unknown>): void {
    const done = new Promise<void>((resolve) => {
      termination.subscribe({ complete: () => resolve(), error: () => resolve() });
    });
    this.running.add(done);
    void done.then(() => this.running.delete(done));
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when every tracked termination has finished (each one is bounded on its own). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
