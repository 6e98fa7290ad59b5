/** A power of two, so the ring can wrap with a mask. */
const INITIAL_CAPACITY = 64;

const nextPowerOfTwo = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(n, 1)));

/**
 * Numbers in a circular typed array: O(1) push and drop from the front, O(1) access by position, 8 bytes an entry and nothing
 * for the garbage collector to trace. Doubles, not 32-bit integers: the offsets it holds grow past 4 GiB on a PTY
 * that runs long enough. It grows by doubling and shrinks at a quarter, so its size stays within a small factor
 * of what it holds, which its owner bounds.
 */
export class OffsetRing {
  private items = new Float64Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  private head = 0;
  size = 0;

  push(value: number): void {
    if (this.size === this.items.length) this.resize(this.items.length * 2);
    this.items[(this.head + this.size) & this.mask] = value;
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
    return this.items[(this.head + index) & this.mask] as number;
  }

  private resize(capacity: number): void {
    const items = new Float64Array(capacity);
    const firstRun = Math.min(this.size, this.items.length - this.head);
    items.set(this.items.subarray(this.head, this.head + firstRun), 0);
    items.set(this.items.subarray(0, this.size - firstRun), firstRun);
    this.items = items;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
