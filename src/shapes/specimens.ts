/**
 * Keeps the last `limit` used instances of a kind alive after their owner let them go, and releases the oldest as a
 * newer one comes (an emulator is disposed then).
 *
 * Why, as for ShapeKeeper: V8 frees the hidden classes an instance went through once no instance of them is alive
 * at a full collection, and with them the optimized code of every function that used them. A used instance has been
 * through those classes; one kept alive between two PTYs spares the next PTY's flood a compile of that code (A/B in
 * docs/perf-journal.md, eighth session). Where a fresh instance would do as well, ShapeKeeper makes one instead.
 */
export class Specimens<T> {
  private readonly kept: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly release: (specimen: T) => void = () => undefined,
  ) {}

  /** Call with an instance its owner is done with; it must hold nothing that has to go (output, descriptors). */
  keep(specimen: T): void {
    this.kept.push(specimen);
    while (this.kept.length > this.limit) this.release(this.kept.shift() as T);
  }

  /** A kept specimen that `matches`, made the newest again (so the last to go), or undefined. */
  reuse(matches: (specimen: T) => boolean): T | undefined {
    const at = this.kept.findIndex(matches);
    if (at === -1) return undefined;
    const [found] = this.kept.splice(at, 1) as [T];
    this.kept.push(found);
    return found;
  }

  /** What is kept, oldest first (for tests). */
  get specimens(): readonly T[] {
    return this.kept;
  }
}
