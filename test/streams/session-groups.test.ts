import type { ProcStat } from '../../src/engine/procfs.js';
import type { ScannedMember, SweepSignal } from '../../src/operators/sweep-session.js';
import { procMemberProbe } from '../../src/streams/session-members.js';
import { procSweeper } from '../../src/streams/session-sweeper.js';

/** The processes /proc shows in these tests: readStat and the session scanner read this table, kill acts on it. */
const table = new Map<number, ProcStat>();
/** Pids the scanner misses (a scan does not see one instant: a process can move while /proc is read). */
const hidden = new Set<number>();

jest.mock('../../src/engine/procfs.js', () => ({
  ...jest.requireActual('../../src/engine/procfs.js'),
  readStat: (pid: number) => table.get(pid),
}));
jest.mock('../../src/streams/session-scanner.js', () => ({
  sessionScanner: (sid: number, notBefore: number) => {
    const scan = (): ScannedMember[] =>
      [...table.values()]
        .filter((p) => p.sessionId === sid && p.state !== 'Z' && p.startTime >= notBefore && !hidden.has(p.pid))
        .map(({ pid, pgrp, state }) => ({ pid, pgrp, state }));
    return { scan, scanInSlices: async () => scan(), keepListed: () => undefined, warm: async () => undefined };
  },
}));

const SID = 100;
const SCRIPT_START = 50;

function proc(pid: number, pgrp: number, sessionId = SID, state = 'S', startTime = 60): ProcStat {
  return { pid, ppid: 1, pgrp, sessionId, state, ttyNr: 0, startTime };
}

let kills: string[];

beforeEach(() => {
  table.clear();
  hidden.clear();
  kills = [];
  jest.spyOn(process, 'kill').mockImplementation((pid: number, signal?: string | number) => {
    kills.push(`${signal}:${pid}`);
    for (const p of [...table.values()]) {
      if (pid < 0 ? p.pgrp !== -pid : p.pid !== pid) continue;
      if (signal === 'SIGSTOP') table.set(p.pid, { ...p, state: 'T' });
      else if (signal === 'SIGCONT') table.set(p.pid, { ...p, state: 'S' });
      else if (signal === 'SIGKILL') table.delete(p.pid);
    }
    return true;
  });
});

afterEach(() => jest.restoreAllMocks());

describe('procMemberProbe frozenScan', () => {
  it('leaves alone a remembered group whose id is now a stranger’s: an emptied group’s id, now a stopped job of the user’s', () => {
    table.set(SID, proc(SID, SID));
    table.set(200, proc(200, 200));
    const probe = procMemberProbe(SID, SCRIPT_START);
    expect(probe.scan().map((m) => m.pid)).toEqual([SID, 200]);
    // Hours later: both have exited, and pid 200 is now the leader of a job the user stopped in another session.
    table.clear();
    table.set(200, proc(200, 200, 300, 'T', 90));
    expect(probe.scan()).toEqual([]);
    expect(probe.frozenScan()).toEqual([]);
    expect(kills).toEqual([`SIGSTOP:-${SID}`, `SIGCONT:-${SID}`]);
    expect(table.get(200)?.state).toBe('T');
  });

  it('still stops a group an earlier scan saw after the pids seen in it are gone, and finds what it holds', () => {
    table.set(SID, proc(SID, SID));
    table.set(201, proc(201, 200));
    const probe = procMemberProbe(SID, SCRIPT_START);
    expect(probe.scan().map((m) => m.pid)).toEqual([SID, 201]);
    // The leader has exited; 201 forked 202 and exited, and the plain scan misses 202 (a worm on the move).
    table.delete(SID);
    table.delete(201);
    table.set(202, proc(202, 200));
    hidden.add(202);
    expect(probe.scan()).toEqual([]);
    hidden.delete(202);
    expect(probe.frozenScan().map((m) => m.pid)).toEqual([202]);
    expect(kills).toEqual([`SIGSTOP:-${SID}`, 'SIGSTOP:-200', `SIGCONT:-${SID}`, 'SIGCONT:-200']);
  });

  it('continues a group it stopped itself at every frozen scan: its own STOP is not taken for job control', () => {
    table.set(SID, proc(SID, SID));
    table.set(201, proc(201, 200));
    const probe = procMemberProbe(SID, SCRIPT_START);
    probe.scan();
    // A worm in group 200 the plain scans miss, twice in a row; each frozen scan sees it stopped by its own STOP.
    hidden.add(201);
    for (let round = 0; round < 2; round++) {
      expect(probe.scan().map((m) => m.pid)).toEqual([SID]);
      hidden.delete(201);
      expect(probe.frozenScan().map((m) => m.pid)).toEqual([SID, 201]);
      hidden.add(201);
    }
    expect(kills.filter((k) => k.endsWith(':-200'))).toEqual([
      'SIGSTOP:-200',
      'SIGCONT:-200',
      'SIGSTOP:-200',
      'SIGCONT:-200',
    ]);
    expect(table.get(201)?.state).toBe('S');
  });

  it('does not continue a group its own job control had stopped (every member stopped when last seen)', () => {
    table.set(SID, proc(SID, SID));
    table.set(400, proc(400, 400, SID, 'T'));
    const probe = procMemberProbe(SID, SCRIPT_START);
    expect(probe.scan().map((m) => m.pid)).toEqual([SID, 400]);
    probe.frozenScan();
    expect(kills).toEqual([`SIGSTOP:-${SID}`, 'SIGSTOP:-400', `SIGCONT:-${SID}`]);
    expect(table.get(400)?.state).toBe('T');
  });

  it('continues only the groups it stopped, not a group of the session it found already stopped by its own job control', () => {
    // The leader has exited; a member in its group (missed by the plain scan) and a job stopped within the PTY.
    const probe = procMemberProbe(SID, SCRIPT_START);
    expect(probe.scan()).toEqual([]);
    table.set(101, proc(101, SID));
    table.set(400, proc(400, 400, SID, 'T'));
    expect(probe.frozenScan().map((m) => m.pid)).toEqual([101, 400]);
    expect(kills).toEqual([`SIGSTOP:-${SID}`, `SIGCONT:-${SID}`]);
    expect(table.get(400)?.state).toBe('T');
  });
});

describe('procSweeper signalGroup', () => {
  const member = (pid: number, pgrp: number): ScannedMember => ({ pid, pgrp, state: 'S' });
  const send = (pgid: number, seen: readonly ScannedMember[], signal: SweepSignal = 'SIGTERM') =>
    procSweeper(SID, SCRIPT_START, 99).signalGroup(pgid, signal, seen);

  it('sends while a member seen in the group is still in the session and in that group', () => {
    table.set(201, proc(201, 200));
    // The first one seen has gone; the second is still there.
    expect(send(200, [member(202, 200), member(201, 200)])).toBe(true);
    expect(kills).toEqual(['SIGTERM:-200']);
  });

  it('with no member seen still there, sends only while no process has the group’s id or it is one of the session’s', () => {
    table.set(201, proc(201, 300)); // moved to another group
    table.set(202, proc(202, 200, 555)); // the pid reused in another session, in a group of that id
    table.set(203, proc(203, 200, SID, 'Z')); // a zombie
    table.set(204, proc(204, 200, SID, 'S', 10)); // older than script: a reused pid
    const gone = [member(201, 200), member(203, 200), member(204, 200), member(205, 200)];
    // No process 200: the group is ours or empty (its leader gone, a worm may live on in it).
    expect(send(200, gone)).toBe(true);
    expect(send(200, [])).toBe(true);
    // A pid seen in it is in that group now, but another session's: the pid was reused, the group is theirs.
    expect(send(200, [...gone, member(202, 200)])).toBe(false);
    // Process 200 is another session's now: the id went to a stranger.
    table.set(200, proc(200, 200, 555, 'T', 90));
    expect(send(200, gone)).toBe(false);
    // Process 200 is this session's: the group is ours.
    table.set(200, proc(200, 200));
    expect(send(200, [])).toBe(true);
    expect(kills).toEqual(['SIGTERM:-200', 'SIGTERM:-200', 'SIGTERM:-200']);
  });

  it('sends to the leader’s group unseen while the pid is gone or still the leader, never to a stranger with its id', () => {
    expect(send(SID, [])).toBe(true);
    table.set(SID, proc(SID, SID));
    expect(send(SID, [])).toBe(true);
    table.set(SID, proc(SID, SID, 777, 'T'));
    expect(send(SID, [])).toBe(false);
    expect(kills).toEqual([`SIGTERM:-${SID}`, `SIGTERM:-${SID}`]);
  });

  it('never sends to group 0 or 1, whatever a scan said', () => {
    table.set(5, proc(5, 1));
    table.set(6, proc(6, 0));
    expect([send(1, [member(5, 1)]), send(0, [member(6, 0)])]).toEqual([false, false]);
    expect(kills).toEqual([]);
  });
});
