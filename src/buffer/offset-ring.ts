/** A power of two, so the ring can wrap with a mask. */
const INITIAL_CAPACITY = 64;

/** What a ring holds before its first push: nothing, shared. */
const NO_ITEMS = new Int32Array(0);

/**
 * How far an entry may sit from the base before the ring moves its base to its oldest entry: well inside 32 bits,
 * so each entry, stored as its distance from the base, is a 32-bit integer.
 */
const REBASE_DISTANCE = 2 ** 30;

/**
 * An integer: `2 **` gives a double even when whole, and a double mask made JavaScriptCore's optimized ring code
 * (speculating integers) leave and be rebuilt at every shrink (docs/perf-journal.md, eighteenth session).
 */
const nextPowerOfTwo = (n: number): number => 1 << Math.ceil(Math.log2(Math.max(n, 1)));

/**
 * Integers (offsets, line counts) in a circular typed array: O(1) push and drop from the front, O(1) access by
 * position, 4 bytes an entry and nothing for the garbage collector to trace. The values themselves grow past 4 GiB
 * on a PTY that runs long enough, but what one ring holds at once spans a few megabytes at most (its owner bounds
 * it): each entry is kept as its distance from a base, an Int32Array's integer. Reading one back gives a 32-bit
 * integer whenever the value fits: from a Float64Array every read was a double, and JavaScriptCore's optimized code,
 * which had seen the same fields hold integers, left and was rebuilt wherever the two met (eighteenth session).
 * It grows by doubling and shrinks at a quarter, so its size stays within a small factor of what it holds.
 */
export class OffsetRing {
  /**
   * Allocated at the first push: a PTY's buffer holds several rings, most of them empty for a PTY that prints little,
   * and each typed array made at construction was ≈0.03–0.1 ms of every spawn in Node (profiled, twentieth session).
   */
  private items: Int32Array = NO_ITEMS;
  private mask = 0;
  private head = 0;
  /** What every entry is stored relative to. */
  private base = 0;
  size = 0;

  /** `value` must be an integer within 2^30 of every entry the ring still holds. */
  push(value: number): void {
    if (this.size === this.items.length) this.resize(Math.max(INITIAL_CAPACITY, this.items.length * 2));
    if (this.size === 0) this.base = value;
    else if (Math.abs(value - this.base) >= REBASE_DISTANCE) this.rebase(value);
    this.items[(this.head + this.size) & this.mask] = value - this.base;
    this.size++;
  }

  /** Removes the oldest `count` entries (at most `size`). */
  drop(count: number): void {
    this.head = (this.head + count) & this.mask;
    this.size -= count;
    if (this.items.length > INITIAL_CAPACITY && this.size < this.items.length / 4)
      this.resize(Math.max(INITIAL_CAPACITY, nextPowerOfTwo(2 * this.size)));
  }

  /** The entry at `index` (0 is the oldest); `index` must be below `size`. */
  at(index: number): number {
    return this.base + (this.items[(this.head + index) & this.mask] as number);
  }

  /** Moves the base to the oldest entry; `incoming` (about to be pushed) must then be within reach of it. */
  private rebase(incoming: number): void {
    const oldest = this.at(0);
    if (Math.abs(incoming - oldest) >= REBASE_DISTANCE) {
      throw new RangeError(`OffsetRing: ${incoming} is 2^30 or more from the oldest entry it holds (${oldest})`);
    }
    const shift = oldest - this.base;
    for (let i = 0; i < this.size; i++) {
      const slot = (this.head + i) & this.mask;
      this.items[slot] = (this.items[slot] as number) - shift;
    }
    this.base = oldest;
  }

  private resize(capacity: number): void {
    const items = new Int32Array(capacity);
    const firstRun = Math.min(this.size, this.items.length - this.head);
    items.set(this.items.subarray(this.head, this.head + firstRun), 0);
    items.set(this.items.subarray(0, this.size - firstRun), firstRun);
    this.items = items;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
