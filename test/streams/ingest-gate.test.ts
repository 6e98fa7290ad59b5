import { IngestGate } from '../../src/streams/ingest-gate.js';

/** A hand-cranked event loop: `turn()` runs what was scheduled for the next turn. */
function loop() {
  let next: Array<() => void> = [];
  return {
    schedule: (fn: () => void) => {
      next.push(fn);
    },
    turn(): void {
      const now = next;
      next = [];
      for (const fn of now) fn();
    },
    get pending(): number {
      return next.length;
    },
  };
}

/** A gate with a 100-byte budget on a hand-cranked loop, and the order in which it resumed streams. */
function setup() {
  const l = loop();
  return { l, gate: new IngestGate(100, l.schedule), resumed: [] as string[] };
}

describe('IngestGate', () => {
  it('resumes nothing in the turn a chunk arrived, everything the next turn while under the budget', () => {
    const { l, gate, resumed } = setup();
    gate.defer(30, () => resumed.push('a'));
    gate.defer(30, () => resumed.push('b'));
    expect(resumed).toEqual([]);
    // One scheduled turn for the whole gate, not one per PTY.
    expect(l.pending).toBe(1);
    l.turn();
    expect(resumed).toEqual(['a', 'b']);
    expect(gate.queued).toBe(0);
    expect(l.pending).toBe(0);
  });

  it('keeps a turn within the budget and lets the rest go first in the following turns', () => {
    const { l, gate, resumed } = setup();
    const flooding = (name: string) => {
      const again = () => {
        resumed.push(name);
        // Each resumed PTY delivers another 40-byte chunk in that turn and queues again.
        gate.defer(40, again);
      };
      return again;
    };
    for (const name of ['a', 'b', 'c', 'd', 'e']) gate.defer(40, flooding(name));
    const perTurn: string[][] = [];
    for (let i = 0; i < 5; i++) {
      resumed.length = 0;
      l.turn();
      perTurn.push([...resumed]);
    }
    // 2 × 40 fit in 100; round robin in arrival order, nobody starves.
    expect(perTurn).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'a'],
      ['b', 'c'],
      ['d', 'e'],
    ]);
    expect(gate.queued).toBe(5);
  });

  it('always lets one chunk through, even one larger than the whole budget', () => {
    const { l, gate, resumed } = setup();
    gate.defer(500, () => resumed.push('big'));
    gate.defer(10, () => resumed.push('small'));
    l.turn();
    expect(resumed).toEqual(['big']);
    l.turn();
    expect(resumed).toEqual(['big', 'small']);
  });

  it('never resumes a cancelled stream and forgets it at once', () => {
    const { l, gate, resumed } = setup();
    const cancel = gate.defer(10, () => resumed.push('closed'));
    gate.defer(10, () => resumed.push('open'));
    cancel();
    expect(gate.queued).toBe(1);
    l.turn();
    expect(resumed).toEqual(['open']);
    cancel();
    expect(gate.queued).toBe(0);
  });

  it('admits chunks without a pause while the turn has budget and nobody waits, and gives the budget back each turn', () => {
    const { l, gate, resumed } = setup();
    expect(gate.admit(60)).toBe(true);
    expect(gate.admit(40)).toBe(true);
    // 100 spent: the next chunk this turn must pause and queue.
    expect(gate.admit(1)).toBe(false);
    gate.defer(1, () => resumed.push('late'));
    // Somebody waits: nobody goes ahead of it, even with budget left.
    l.turn();
    expect(resumed).toEqual(['late']);
    expect(gate.admit(100)).toBe(true);
    expect(l.pending).toBe(1);
    l.turn();
    expect(l.pending).toBe(0);
    expect(gate.admit(100)).toBe(true);
  });

  it('admits the first chunk of a turn whatever its size: one PTY alone never pauses', () => {
    const { l, gate } = setup();
    expect(gate.admit(500)).toBe(true);
    expect(gate.admit(1)).toBe(false);
    l.turn();
    expect(gate.admit(500)).toBe(true);
  });

  it('sums chunks under a quarter of its budget across turns with no turn of its own, then counts them against it', () => {
    const { l, gate } = setup();
    // A REPL's lines, a read each, a turn apart: no setImmediate per read.
    for (let i = 0; i < 2; i++) {
      expect(gate.admit(10)).toBe(true);
      expect(l.pending).toBe(0);
      l.turn();
    }
    // 30 taken since its last turn, a quarter of its budget passed: the gate schedules a turn to give it back.
    expect(gate.admit(10)).toBe(true);
    expect(l.pending).toBe(1);
    // Until then, what was carried over counts: 30 + 71 is past the budget.
    expect(gate.admit(71)).toBe(false);
    l.turn();
    expect(l.pending).toBe(0);
    expect(gate.admit(24)).toBe(true);
    expect(l.pending).toBe(0);
  });

  it('lets a chunk larger than the budget through after small ones it carried: one PTY alone never pauses', () => {
    const { l, gate } = setup();
    expect(gate.admit(20)).toBe(true);
    l.turn();
    expect(gate.admit(500)).toBe(true);
    expect(gate.admit(1)).toBe(false);
    l.turn();
    expect(gate.admit(1)).toBe(true);
  });

  it('keeps a queued PTY ahead of one that would flow', () => {
    const { l, gate, resumed } = setup();
    expect(gate.admit(60)).toBe(true);
    expect(gate.admit(150)).toBe(false);
    gate.defer(150, () => resumed.push('big'));
    expect(gate.admit(10)).toBe(false);
    gate.defer(10, () => resumed.push('small'));
    l.turn();
    l.turn();
    expect(resumed).toEqual(['big', 'small']);
    expect(gate.admit(10)).toBe(true);
  });

  it('goes idle when nothing waits, and wakes for the next chunk', () => {
    const { l, gate, resumed } = setup();
    gate.defer(10, () => resumed.push('first'));
    l.turn();
    expect(l.pending).toBe(0);
    gate.defer(10, () => resumed.push('second'));
    expect(l.pending).toBe(1);
    l.turn();
    expect(resumed).toEqual(['first', 'second']);
  });
});
