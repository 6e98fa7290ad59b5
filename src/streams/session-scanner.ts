/**
 * Session scans of /proc: which live processes are members of one terminal session, read as cheaply as the
 * kernel allows (a record of listed sessions shared by every scanner of the host, reads spread over event-loop
 * turns where a scan need not see one instant).
 */
import { readdirSync } from 'node:fs';
import { isProcess, lastPid, pidMax, type ProcStat, readStat } from '../engine/procfs.js';
import { MAX_CHASED_PIDS, SCAN_CACHE_MAX_AGE_MS, SCAN_SLICE_PROCESSES } from '../limits.js';
import type { ScannedMember } from '../operators/sweep-session.js';
import { isMember } from './session-signals.js';
import { procStepTurns } from './step-turns.js';

/** Where a session scan reads processes from: /proc, or a test's own list. */
export interface ProcSource {
  /** The names in /proc (pids, and other entries, which are skipped). */
  list(): readonly string[];
  read(pid: number): ProcStat | undefined;
  /** The pid handed out last (see procfs lastPid); a source without it makes scans that chase nothing. */
  lastPid?(): number | undefined;
  /** Where pids wrap (procfs pidMax). */
  pidMax?(): number;
  /** Whether a pid is a process, not another thread of one (procfs isProcess). */
  isProcess?(pid: number): boolean;
}

const LIVE_PROC: ProcSource = { list: () => readdirSync('/proc'), read: readStat, lastPid, pidMax, isProcess };

export interface SessionScanner {
  /**
   * Every live member now, in one go: those the listing of /proc showed, and those made while the scan ran (read
   * after it, pid by pid: see chase). `onChased` is called for each of the latter as soon as it is read, so that a
   * sweep can stop a forking member before it forks again.
   */
  scan(onChased?: (member: ScannedMember) => void): readonly ScannedMember[];
  /**
   * Whether the latest scan read every pid made while it ran (false when more than MAX_CHASED_PIDS were): only then
   * may a scan that found no member be taken to mean the session is empty.
   */
  complete(): boolean;
  /**
   * The same scan, spread over event-loop turns: at most SCAN_SLICE_PROCESSES stat reads per turn. A full scan
   * of a machine with a thousand processes held the host's loop for 35–50 ms in one piece (the scan at every PTY's
   * exit); a scan that need not see one instant of the session (one before a frozen scan does) uses this.
   */
  scanInSlices(): Promise<readonly ScannedMember[]>;
  /** Lists /proc and carries the record over to the pids still listed (ListedSessions.relist). */
  keepListed(): void;
  /** Makes the shared record valid, reading what it lacks in slices (ListedSessions.warm). */
  warm(): Promise<void>;
}

/** Stored for a zombie: it never runs again, so it is no session's member, whichever it was in. */
const NO_SESSION = -1;

/**
 * The session of every process a scan in this host read, as of the newest complete listing of /proc, shared by
 * every scanner. A process never joins an existing session: setsid() only ever makes a new one, numbered by the
 * caller's own pid. So a pid that was not a member of session S in one listing, is not S's number itself, and is
 * listed again within SCAN_CACHE_MAX_AGE_MS (see there why it cannot have been reused), is not a member of S now:
 * no scanner of S reads it again. The PTYs of a deleted owner, or of a closing host, are swept at once: /proc is
 * read once for all of them, not once each. Bounded by the pids of one listing.
 */
export class ListedSessions {
  private sessions = new Map<number, number>();
  private listedAt = Number.NEGATIVE_INFINITY;
  private warming: Promise<void> | undefined;

  /**
   * Makes the record valid: what it does not know is read in slices (SessionScanner.scanInSlices), so that the
   * synchronous scans that follow read only members and pids new since. One warm-up at a time, shared by every
   * caller: PTYs swept at once wait for the same one.
   */
  warm(now: () => number, source: ProcSource): Promise<void> {
    if (this.snapshot(now()) !== undefined) return Promise.resolve();
    this.warming ??= sessionScanner(NO_SESSION, 0, now, source, this)
      .scanInSlices()
      .then(() => undefined)
      .finally(() => {
        this.warming = undefined;
      });
    return this.warming;
  }

  /** The sessions as of the newest listing, if it is recent enough at `at` to be trusted. */
  snapshot(at: number): ReadonlyMap<number, number> | undefined {
    return at - this.listedAt <= SCAN_CACHE_MAX_AGE_MS ? this.sessions : undefined;
  }

  /** A complete listing made at `at` (a scan in slices may finish after a newer one: the newer one is kept). */
  record(at: number, sessions: Map<number, number>): void {
    if (at < this.listedAt) return;
    this.sessions = sessions;
    this.listedAt = at;
  }

  /**
   * A listing of /proc made at `at`, with nothing read: the pids in it that the record knows stay known (listed
   * twice, in time, they are the same processes), the rest are dropped, and new ones will be read by the next scan.
   * Listing costs one readdir; it keeps the record valid for a poll that comes more often than its age allows.
   */
  relist(at: number, names: readonly string[]): void {
    const known = this.snapshot(at);
    if (known === undefined) return;
    const sessions = new Map<number, number>();
    for (const name of names) {
      const pid = Number(name);
      const session = known.get(pid);
      if (session !== undefined) sessions.set(pid, session);
    }
    this.record(at, sessions);
  }
}

const HOST_LISTED_SESSIONS = new ListedSessions();

/**
 * The live members of one session, scanned incrementally: a full /proc scan reads ~1,000 stat files (measured
 * 120 ms on a loaded machine here, ~7 ms of it the listing), while a sweep scans every few milliseconds. Only new
 * pids and members are read again within SCAN_CACHE_MAX_AGE_MS of the last listing, by this or any other scanner
 * (ListedSessions).
 */
export function sessionScanner(
  terminalSid: number,
  notBefore: number,
  now: () => number = () => performance.now(),
  source: ProcSource = LIVE_PROC,
  listed: ListedSessions = HOST_LISTED_SESSIONS,
): SessionScanner {
  let lastComplete = true;
  /** One scan, pausing (a `yield`) after every SCAN_SLICE_PROCESSES stat reads; the caller decides whether to wait. */
  function* steps(onChased?: (member: ScannedMember) => void): Generator<void, ScannedMember[]> {
    // Read before the listing: a process made after it has a later pid, and the chase reads those.
    // (A warm-up, for no session, has no member to chase.)
    const chaseFrom = terminalSid === NO_SESSION ? undefined : source.lastPid?.();
    const at = now();
    const known = listed.snapshot(at);
    const sessions = new Map<number, number>();
    const members: ScannedMember[] = [];
    let reads = 0;
    for (const name of source.list()) {
      const first = name.charCodeAt(0);
      if (first < 48 || first > 57) continue;
      const pid = Number(name);
      const session = known?.get(pid);
      // The one process that can enter this session after being listed in another is its leader: setsid() moved
      // it into a session of its own, numbered by its pid (a scan may have listed it between fork and setsid).
      if (session !== undefined && session !== terminalSid && pid !== terminalSid) {
        sessions.set(pid, session);
        continue;
      }
      if (reads > 0 && reads % SCAN_SLICE_PROCESSES === 0) yield;
      reads++;
      const stat = source.read(pid);
      if (stat === undefined) continue;
      sessions.set(pid, stat.state === 'Z' ? NO_SESSION : stat.sessionId);
      if (isMember(stat, terminalSid, notBefore)) members.push({ pid, pgrp: stat.pgrp, state: stat.state });
    }
    listed.record(at, sessions);
    lastComplete = chaseFrom === undefined || chase(chaseFrom, members, onChased);
    return members;
  }

  /**
   * Reads the pids handed out since `from`, up to the newest, again until no new one comes: a process the listing
   * could not show (made after it, or the child of a listed one that exited before its stat was read) has one of
   * them. A member found is added and handed to `onChased` at once: a worm that forks and exits every millisecond,
   * each child in a process group of its own, is found at its newest generation (a scan lists /proc for several
   * milliseconds). False when more than MAX_CHASED_PIDS were made meanwhile.
   */
  function chase(from: number, members: ScannedMember[], onChased?: (member: ScannedMember) => void): boolean {
    const seen = new Set(members.map((m) => m.pid));
    let wrapAt = source.pidMax?.() ?? Number.MAX_SAFE_INTEGER;
    let cursor = from;
    for (let chased = 0; ; ) {
      const last = source.lastPid?.();
      if (last === undefined) return false;
      if (last === cursor) return true;
      // pid_max raised since it was read: pids go on past the old one.
      wrapAt = Math.max(wrapAt, last + 1, cursor + 1);
      // Pids wrap past pid_max to the lowest free one: the newest may be below where the chase stands.
      for (let pid = cursor; pid !== last; ) {
        pid = pid >= wrapAt - 1 ? 1 : pid + 1;
        if (++chased > MAX_CHASED_PIDS) return false;
        if (seen.has(pid)) continue;
        const stat = source.read(pid);
        if (!isMember(stat, terminalSid, notBefore) || source.isProcess?.(pid) === false) continue;
        seen.add(pid);
        const member = { pid, pgrp: stat.pgrp, state: stat.state };
        members.push(member);
        onChased?.(member);
      }
      cursor = last;
    }
  }
  return {
    keepListed: () => listed.relist(now(), source.list()),
    warm: () => listed.warm(now, source),
    complete: () => lastComplete,
    scan: (onChased) => {
      const scan = steps(onChased);
      for (;;) {
        const step = scan.next();
        if (step.done) return step.value;
      }
    },
    scanInSlices: async () => {
      const scan = steps();
      for (;;) {
        // The first slice too: scans begun in one turn (the exits of a deleted owner's PTYs) are spread over turns.
        await procStepTurns.next();
        const step = scan.next();
        if (step.done) return step.value;
      }
    },
  };
}
