import { BoundedMap } from './bounded-map.js';

/** A set that forgets its least recently added member once it holds more than `max`: memory of ids that stays bounded. */
export class BoundedSet<T> {
  private readonly members: BoundedMap<T, true>;

  constructor(max: number) {
    this.members = new BoundedMap(max);
  }

  add(value: T): void {
    this.members.set(value, true);
  }

  has(value: T): boolean {
    return this.members.has(value);
  }

  delete(value: T): void {
    this.members.delete(value);
  }
}
