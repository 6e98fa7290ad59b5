import { firstValueFrom, ReplaySubject } from 'rxjs';
import type { ProcStat } from '../../src/engine/procfs.js';
import type { ScannedMember } from '../../src/operators/sweep-session.js';
import { scriptTermination } from '../../src/streams/script-termination.js';

/** The processes /proc shows: readStat, childrenOf and the session scanner read this table, kill acts on it. */
const table = new Map<number, ProcStat>();
const childLookups: number[] = [];
/** Scans that fail before answering: the sweep then gives up (as when /proc cannot be read). */
const failingScans = { left: 0 };

jest.mock('../../src/engine/procfs.js', () => ({
  ...jest.requireActual('../../src/engine/procfs.js'),
  readStat: (pid: number) => table.get(pid),
  childrenOf: (pid: number) => {
    childLookups.push(pid);
    return [...table.values()].filter((p) => p.ppid === pid);
  },
}));
jest.mock('../../src/engine/script-missed-death.js', () => ({ missedLeaderDeath: () => undefined }));
jest.mock('../../src/streams/session-scanner.js', () => ({
  sessionScanner: (sid: number, notBefore: number) => {
    const scan = (): ScannedMember[] => {
      if (failingScans.left > 0) {
        failingScans.left--;
        throw new Error('/proc unreadable');
      }
      return [...table.values()]
        .filter((p) => p.sessionId === sid && p.state !== 'Z' && p.startTime >= notBefore)
        .map(({ pid, pgrp, state }) => ({ pid, pgrp, state }));
    };
    return { scan, scanInSlices: async () => scan(), keepListed: () => undefined, warm: async () => undefined };
  },
}));

const SCRIPT = 4_000;
const SID = 4_001;
const proc = (pid: number, ppid: number, sessionId: number, pgrp = pid): ProcStat => ({
  pid,
  ppid,
  pgrp,
  sessionId,
  state: 'S',
  ttyNr: 0,
  startTime: 60,
});

let kills: string[];
/** What a signal does to the table, per test (one spy per test: a second spy on process.kill may outlive the file). */
let onKill: (pid: number, signal: string | number | undefined) => void;

beforeEach(() => {
  table.clear();
  childLookups.length = 0;
  failingScans.left = 0;
  kills = [];
  onKill = () => undefined;
  jest.spyOn(process, 'kill').mockImplementation((pid: number, signal?: string | number) => {
    kills.push(`${signal}:${pid}`);
    onKill(pid, signal);
    return true;
  });
});

afterEach(() => jest.restoreAllMocks());

/** A PTY stopped before its leader lookup answered: the teardown's terminate, as pty-process.ts builds it. */
function stoppedWhileStarting() {
  const exited$ = new ReplaySubject<void>(1);
  const state = { sid: null as number | null, emptied: 0 };
  const terminate = scriptTermination({
    pid: SCRIPT,
    scriptStart: () => 50,
    terminalSid: () => state.sid,
    exited$,
    killScript: () => {
      table.delete(SCRIPT);
      exited$.next();
    },
    onEmptied: () => void state.emptied++,
  });
  return { terminate, exited$, state };
}

describe('scriptTermination of a PTY whose leader was never reported', () => {
  it('finds the session under script while script runs, and sweeps it by its id', async () => {
    table.set(SCRIPT, proc(SCRIPT, 1, 1));
    table.set(SID, proc(SID, SCRIPT, SID));
    onKill = (pid, signal) => {
      if (signal === 'SIGTERM' && (pid === SID || pid === -SID)) table.delete(SID);
    };
    const { terminate } = stoppedWhileStarting();
    const report = await firstValueFrom(terminate());
    expect(childLookups).toContain(SCRIPT);
    expect(kills).toContain(`SIGTERM:-${SID}`);
    expect(report.survivors.count).toBe(0);
  });

  it('once script is reaped with no session ever seen, names nothing by its pid and kills nothing', async () => {
    const { terminate, exited$ } = stoppedWhileStarting();
    exited$.next();
    table.set(SCRIPT, proc(SCRIPT, 1, 9_999));
    table.set(SCRIPT + 10, proc(SCRIPT + 10, SCRIPT, 9_999));
    const report = await firstValueFrom(terminate());
    expect(report).toEqual({ termed: 0, escalated: false, scriptKilled: false, survivors: { count: 0, listed: [] } });
    expect(childLookups).toEqual([]);
    expect(kills).toEqual([]);
  });

  it('does not take "nothing to name" for an emptied session: a report of the leader that comes late is swept', async () => {
    const { terminate, exited$, state } = stoppedWhileStarting();
    exited$.next();
    expect((await firstValueFrom(terminate())).survivors.count).toBe(0);
    expect(state.emptied).toBe(0);
    // The argv channel's report arrives before close: the session has a name now, and its member is swept.
    state.sid = SID;
    table.set(SID, proc(SID, 1, SID));
    onKill = (pid, signal) => {
      if (signal === 'SIGTERM' && (pid === SID || pid === -SID)) table.delete(SID);
    };
    const swept = await firstValueFrom(terminate());
    expect(kills).toContain(`SIGTERM:-${SID}`);
    expect(swept.survivors.count).toBe(0);
    expect(state.emptied).toBe(1);
  });

  it('gives up on a sweep that fails without killing by the pid of a script already reaped, and says so', async () => {
    const { terminate, exited$, state } = stoppedWhileStarting();
    state.sid = SID;
    exited$.next();
    // script's pid now names another process, which must not be killed.
    table.set(SCRIPT, proc(SCRIPT, 1, 9_999));
    table.set(SID, proc(SID, 1, SID));
    failingScans.left = 1;
    const report = await firstValueFrom(terminate());
    expect(report).toMatchObject({ escalated: true, scriptKilled: false });
    expect(report.survivors.count).toBe(1);
    expect(table.get(SCRIPT)?.sessionId).toBe(9_999);
  });

  it('gives up on a sweep that fails while script runs by killing script, and says so', async () => {
    const { terminate, state } = stoppedWhileStarting();
    state.sid = SID;
    table.set(SCRIPT, proc(SCRIPT, 1, 1));
    failingScans.left = 1;
    const report = await firstValueFrom(terminate());
    expect(report).toMatchObject({ escalated: true, scriptKilled: true });
    expect(table.has(SCRIPT)).toBe(false);
  });
});
