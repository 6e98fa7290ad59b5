import { randomBytes } from 'node:crypto';
import { PtyError } from '../errors.js';
import { MAX_SESSIONS, MAX_SESSIONS_PER_OWNER, PTY_ID_HEX_CHARS, PTY_ID_RANDOM_POOL_BYTES } from '../limits.js';

export interface Entry {
  readonly owner: string;
  /**
   * Whether the PTY still holds processes (starting, running, lingering, or survivors of a stop's sweep): only one
   * that holds none may be evicted, or they would be answerable to nothing.
   */
  readonly holdsProcesses: boolean;
  /** Releases what the entry holds beyond its own memory (a PTY's screen emulator) once it is removed. */
  dispose?(): void;
}

export interface Reservation<E extends Entry> {
  readonly id: string;
  readonly owner: string;
  /** Turns the reservation into an entry. */
  commit(entry: E): void;
  /** Frees the slot unless committed. Idempotent. */
  release(): void;
}

export interface RegistryLimits {
  readonly maxSessions: number;
  readonly maxPerOwner: number;
}

/**
 * PTYs by id, owned by the OpenCode session that spawned them. `reserve` is synchronous, so two spawns
 * racing through their first await can never both take the last slot: reservations count like PTYs.
 *
 * A reservation that needs an ended PTY's place takes it only when it is committed: until then that PTY stays
 * readable, and a spawn that fails (a missing command, a refused prompt, an abort) leaves it as it was. It no longer
 * counts meanwhile, so two reservations never count on the same place.
 */
export class Registry<E extends Entry> {
  private readonly entries = new Map<string, E>();
  private readonly reserved = new Map<string, string>();
  /** Ended PTYs whose places open reservations will take when committed. */
  private readonly doomed = new Set<string>();
  /** Random bytes for ids, drawn PTY_ID_RANDOM_POOL_BYTES at a time, and how many of them are used. */
  private random = Buffer.alloc(0);
  private randomUsed = 0;

  constructor(
    private readonly limits: RegistryLimits = { maxSessions: MAX_SESSIONS, maxPerOwner: MAX_SESSIONS_PER_OWNER },
    private readonly onEvict: (id: string, entry: E) => void = () => {},
  ) {}

  reserve(owner: string): Reservation<E> {
    let victim: string | undefined;
    if (this.countOf(owner) >= this.limits.maxPerOwner) {
      victim = this.endedOf(owner);
      if (victim === undefined) {
        throw new PtyError(
          'limit',
          `this session already holds ${this.limits.maxPerOwner} PTYs (the limit per session)${this.pendingNote(owner)}. End one with pty_kill (cleanup: true removes it), then spawn again. Nothing was started.`,
        );
      }
    }
    // At the global limit, ended PTYs of idle sessions would otherwise lock every session out for good:
    // the caller's own oldest ended PTY goes first, then the oldest ended PTY of any session.
    if (victim === undefined && this.total() >= this.limits.maxSessions) {
      victim = this.endedOf(owner) ?? this.endedOf(undefined);
      if (victim === undefined) {
        throw new PtyError(
          'limit',
          `${this.limits.maxSessions} PTYs are held across all sessions (the limit)${this.pendingNote(undefined)}. End one of yours with pty_kill, or wait for one to end. Nothing was started.`,
        );
      }
    }
    if (victim !== undefined) this.doomed.add(victim);
    const id = this.freshId();
    this.reserved.set(id, owner);
    let open = true;
    const settle = () => {
      open = false;
      this.reserved.delete(id);
      if (victim !== undefined) this.doomed.delete(victim);
    };
    return {
      id,
      owner,
      commit: (entry) => {
        if (!open) throw new Error(`reservation ${id} was already settled`);
        settle();
        if (victim !== undefined) this.evict(victim);
        this.entries.set(id, entry);
      },
      release: () => {
        if (open) settle();
      },
    };
  }

  /** The caller's PTY, or not_found: another session's PTY is indistinguishable from a missing one. */
  get(owner: string, id: string): E {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.owner !== owner) {
      throw new PtyError('not_found', `no PTY ${id} in this session. pty_list shows the PTYs you own.`);
    }
    return entry;
  }

  ownedBy(owner: string): E[] {
    return [...this.entries.values()].filter((e) => e.owner === owner);
  }

  all(): E[] {
    return [...this.entries.values()];
  }

  remove(id: string): void {
    this.entries.get(id)?.dispose?.();
    this.entries.delete(id);
  }

  /** Places held: PTYs and reservations, less the ended PTYs reservations will take. */
  total(): number {
    return this.entries.size + this.reserved.size - this.doomedOf(undefined);
  }

  /** Reserved ones not yet PTYs (a permission prompt open, a start under way) also hold a place: the error says so. */
  private pendingNote(owner: string | undefined): string {
    let pending = 0;
    for (const o of this.reserved.values()) if (owner === undefined || o === owner) pending++;
    return pending === 0 ? '' : `, ${pending} of them waiting for the user's approval or starting`;
  }

  countOf(owner: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.owner === owner) n++;
    for (const o of this.reserved.values()) if (o === owner) n++;
    return n - this.doomedOf(owner);
  }

  /** The ended PTYs of `owner` (of anyone when undefined) that open reservations will take and that are still here. */
  private doomedOf(owner: string | undefined): number {
    let n = 0;
    for (const id of this.doomed) {
      const entry = this.entries.get(id);
      if (entry !== undefined && (owner === undefined || entry.owner === owner)) n++;
    }
    return n;
  }

  /** The oldest ended PTY of `owner`, or of anyone when undefined, no reservation has taken (Map order is insertion order). */
  private endedOf(owner: string | undefined): string | undefined {
    for (const [id, entry] of this.entries) {
      if ((owner === undefined || entry.owner === owner) && !entry.holdsProcesses && !this.doomed.has(id)) return id;
    }
    return undefined;
  }

  /** Removes an ended PTY whose place a committed reservation takes, if it is still here and still ended. */
  private evict(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.holdsProcesses) return;
    this.entries.delete(id);
    entry.dispose?.();
    this.onEvict(id, entry);
  }

  private freshId(): string {
    for (;;) {
      const id = `pty_${this.randomHex()}`;
      if (!this.entries.has(id) && !this.reserved.has(id)) return id;
    }
  }

  /** PTY_ID_HEX_CHARS random hex digits, from bytes drawn PTY_ID_RANDOM_POOL_BYTES at a time. */
  private randomHex(): string {
    const bytes = PTY_ID_HEX_CHARS / 2;
    if (this.randomUsed + bytes > this.random.length) {
      this.random = randomBytes(PTY_ID_RANDOM_POOL_BYTES);
      this.randomUsed = 0;
    }
    this.randomUsed += bytes;
    return this.random.toString('hex', this.randomUsed - bytes, this.randomUsed);
  }
}
