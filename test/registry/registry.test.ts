import fc from 'fast-check';
import { Registry, type Entry } from '../../src/registry/registry.js';

interface E extends Entry {
  holdsProcesses: boolean;
}

describe('Registry reservations', () => {
  it('never lets PTYs plus reservations pass the global or per-owner limit, whatever the interleaving (model)', () => {
    const owners = ['a', 'b', 'c'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), owner: fc.constantFrom(...owners) }),
      fc.record({ kind: fc.constant('commit' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('exit' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const evicted: string[] = [];
        const registry = new Registry<E>({ maxSessions: 7, maxPerOwner: 3 }, (id) => evicted.push(id));
        const open: Array<ReturnType<typeof registry.reserve>> = [];
        const entries: E[] = [];
        for (const o of ops) {
          if (o.kind === 'reserve') {
            const before = evicted.length;
            try {
              open.push(registry.reserve(o.owner));
              // A reservation evicts nothing by itself; only its commit does.
              expect(evicted.length).toBe(before);
            } catch (err) {
              expect((err as { code: string }).code).toBe('limit');
            }
          } else if (o.kind === 'commit' && open.length > 0) {
            const r = open.splice(o.pick % open.length, 1)[0]!;
            const e = { owner: r.owner, holdsProcesses: true };
            entries.push(e);
            r.commit(e);
          } else if (o.kind === 'release' && open.length > 0) {
            const before = evicted.length;
            open.splice(o.pick % open.length, 1)[0]!.release();
            expect(evicted.length).toBe(before);
          } else if (o.kind === 'exit' && entries.length > 0) {
            entries[o.pick % entries.length]!.holdsProcesses = false;
          }
          expect(registry.total()).toBeLessThanOrEqual(7);
          for (const owner of owners) expect(registry.countOf(owner)).toBeLessThanOrEqual(3);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("evicts the owner's oldest ended PTY at the owner limit, and refuses when all still run", () => {
    const evicted: string[] = [];
    const registry = new Registry<E>({ maxSessions: 16, maxPerOwner: 2 }, (id) => evicted.push(id));
    const r1 = registry.reserve('a');
    const e1 = { owner: 'a', holdsProcesses: true };
    r1.commit(e1);
    registry.reserve('a').commit({ owner: 'a', holdsProcesses: true });
    expect(() => registry.reserve('a')).toThrow(/already holds 2 PTYs \(the limit per session\)\. End one/);
    e1.holdsProcesses = false;
    // The ended PTY keeps its output until the new one is committed: a spawn that fails leaves it as it was.
    const refused = registry.reserve('a');
    expect([evicted, registry.get('a', r1.id), registry.countOf('a')]).toEqual([[], e1, 2]);
    refused.release();
    expect([evicted, registry.get('a', r1.id), registry.countOf('a')]).toEqual([[], e1, 2]);
    const r3 = registry.reserve('a');
    // Its place is taken: no other reservation counts on it.
    expect(() => registry.reserve('a')).toThrow(/already holds 2 PTYs/);
    r3.commit({ owner: 'a', holdsProcesses: true });
    expect(evicted).toEqual([r1.id]);
    expect(() => registry.get('a', r1.id)).toThrow(/no PTY/);
    expect(registry.countOf('a')).toBe(2);
  });

  it('says how many of the places are held by spawns waiting for approval or starting, not that all run', () => {
    const registry = new Registry<E>({ maxSessions: 3, maxPerOwner: 2 });
    registry.reserve('a').commit({ owner: 'a', holdsProcesses: true });
    registry.reserve('a');
    expect(() => registry.reserve('a')).toThrow(
      /already holds 2 PTYs \(the limit per session\), 1 of them waiting for the user's approval or starting\./,
    );
    registry.reserve('b');
    expect(() => registry.reserve('c')).toThrow(
      /3 PTYs are held across all sessions \(the limit\), 2 of them waiting for the user's approval or starting\./,
    );
  });

  it("at the global limit evicts the oldest ended PTY of any session, the caller's own first", () => {
    const evicted: string[] = [];
    const registry = new Registry<E>({ maxSessions: 3, maxPerOwner: 3 }, (id) => evicted.push(id));
    const entries = ['a', 'b', 'c'].map((owner) => {
      const r = registry.reserve(owner);
      const e = { owner, holdsProcesses: true };
      r.commit(e);
      return { id: r.id, e };
    });
    expect(() => registry.reserve('d')).toThrow(/3 PTYs are held across all sessions \(the limit\)\. End one/);
    entries[2]!.e.holdsProcesses = false;
    entries[1]!.e.holdsProcesses = false;
    registry.reserve('c').commit({ owner: 'c', holdsProcesses: true });
    expect(evicted).toEqual([entries[2]!.id]);
    // Another session's ended PTY goes only when the spawn that needs its place is committed.
    registry.reserve('d').release();
    expect(evicted).toEqual([entries[2]!.id]);
    registry.reserve('d').commit({ owner: 'd', holdsProcesses: true });
    expect(evicted).toEqual([entries[2]!.id, entries[1]!.id]);
  });

  it("hides other owners' PTYs behind the same not_found as a missing id", () => {
    const registry = new Registry<E>();
    const r = registry.reserve('a');
    r.commit({ owner: 'a', holdsProcesses: true });
    expect(() => registry.get('b', r.id)).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(registry.ownedBy('b')).toEqual([]);
  });

  it('makes ids of the form pty_ + 8 hex characters; release after commit is a no-op', () => {
    const registry = new Registry<E>();
    const r = registry.reserve('a');
    expect(r.id).toMatch(/^pty_[0-9a-f]{8}$/);
    r.commit({ owner: 'a', holdsProcesses: true });
    r.release();
    expect(registry.total()).toBe(1);
  });
});

describe('Registry ids', () => {
  it('are pty_ and 8 random hex digits, distinct across many draws of the random pool', () => {
    const registry = new Registry<E>({ maxSessions: 10_000, maxPerOwner: 10_000 });
    const ids = Array.from({ length: 1_000 }, () => {
      const reservation = registry.reserve('a');
      reservation.release();
      return reservation.id;
    });
    for (const id of ids) expect(id).toMatch(/^pty_[0-9a-f]{8}$/);
    // Released ids may come again only by chance (1,000 draws of 2^32): a pool read twice would repeat 16 in a row.
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit shows in every position: the bytes are random, not a counter or zeros.
    for (let position = 4; position < 12; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});
