/**
 * Keeps one unused instance of a class alive, made anew each time a used one is let go.
 *
 * Why: V8 frees the hidden classes ("maps") of objects that have no live instance at a full collection, and with
 * each one it throws away every optimized function that checks it ("weak objects" in `--trace-deopt`). No PTY's
 * buffer is alive between two PTYs, so after any full collection the next PTY's output ran through unoptimized
 * code while V8 optimized the whole ingest path again: 20-odd functions, ≈90 ms of compiler CPU per PTY
 * (docs/perf-journal.md, seventh session). One empty instance is enough to keep those classes alive.
 *
 * It is made while the used instance is still alive, so it follows the transitions the class has now: its fields
 * widen in use (a number field to a double, say), which gives the class new hidden classes, and an instance made
 * at startup would hold on to the old ones only.
 */
export class ShapeKeeper<T> {
  private kept: T | undefined;

  constructor(private readonly make: () => T) {}

  /** Call when an instance is let go, before it is unreachable. */
  renew(): void {
    this.kept = this.make();
  }

  /** The instance kept (undefined until the first renew), for tests. */
  get instance(): T | undefined {
    return this.kept;
  }
}
