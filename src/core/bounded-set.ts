/** A set that forgets its oldest member once it holds more than `max`: memory of ids that stays bounded. */
export class BoundedSet<T> {
  private readonly members = new Set<T>();

  constructor(private readonly max: number) {}

  add(value: T): void {
    this.members.add(value);
    if (this.members.size > this.max) {
      const oldest = this.members.values().next();
      if (!oldest.done) this.members.delete(oldest.value);
    }
  }

  has(value: T): boolean {
    return this.members.has(value);
  }

  delete(value: T): void {
    this.members.delete(value);
  }
}
