import { MAX_REMEMBERED_GROUPS } from '../limits.js';
import type { ScannedMember } from './sweep-session.js';

/**
 * The process groups to signal for a PTY's session: the known ones (the leader's, whose id is the sid) and every
 * group a scan has seen a member in, each with the members its latest sighting saw there (what the real signal checks
 * are still in it, see signalSessionGroup). Remembered past the scan that saw them: a fork-and-exit worm's group
 * outlives every pid seen in it, and a scan can miss it. Bounded: past `limit` the group unseen the longest is
 * forgotten; a known group never is. A group whose signal was refused (its id is another session's now) is
 * forgotten until a scan sees it again.
 */
export class SeenGroups {
  private readonly groups = new Map<number, readonly ScannedMember[]>();
  private readonly known: ReadonlySet<number>;

  constructor(
    known: readonly number[],
    private readonly limit: number = MAX_REMEMBERED_GROUPS,
  ) {
    this.known = new Set(known);
    for (const pgrp of known) this.groups.set(pgrp, []);
  }

  /** A scan's members: their groups are seen now, with these members (moved to the newest end). */
  note(members: readonly ScannedMember[]): void {
    const latest = new Map<number, ScannedMember[]>();
    for (const m of members) {
      const seen = latest.get(m.pgrp);
      if (seen === undefined) latest.set(m.pgrp, [m]);
      else seen.push(m);
    }
    for (const [pgrp, seen] of latest) {
      this.groups.delete(pgrp);
      this.groups.set(pgrp, seen);
    }
    for (const pgrp of this.groups.keys()) {
      if (this.groups.size - this.known.size <= this.limit) break;
      if (!this.known.has(pgrp)) this.groups.delete(pgrp);
    }
  }

  /**
   * Signals each group through `send` (which says whether it sent); returns the groups sent. One refused is
   * forgotten, unless known.
   */
  signal(send: (pgrp: number, seen: readonly ScannedMember[]) => boolean): Set<number> {
    const sent = new Set<number>();
    for (const [pgrp, seen] of [...this.groups]) {
      if (send(pgrp, seen)) sent.add(pgrp);
      else if (!this.known.has(pgrp)) this.groups.delete(pgrp);
    }
    return sent;
  }

  /** The groups remembered with the members last seen in each, oldest sighting first. */
  get entries(): ReadonlyMap<number, readonly ScannedMember[]> {
    return this.groups;
  }
}
