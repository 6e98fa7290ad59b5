/**
 * A map that forgets its least recently set entry once it holds more than `max`: per-id memory that stays
 * bounded however many ids a long-running host sees.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  set(key: K, value: V): void {
    // Re-inserting moves the key to the newest end, so what is still in use is forgotten last.
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
