/** A hand-cranked event loop: `turn()` runs what was scheduled for the next turn, then its microtasks. */
export function crankedLoop() {
  let next: Array<() => void> = [];
  return {
    schedule: (fn: () => void) => {
      next.push(fn);
    },
    async turn(): Promise<void> {
      const now = next;
      next = [];
      for (const fn of now) fn();
      // What resumed in this turn runs now, before the loop goes on.
      await new Promise((resolve) => setImmediate(resolve));
    },
    get pending(): number {
      return next.length;
    },
  };
}
