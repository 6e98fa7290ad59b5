import { spawn, type ChildProcess } from 'node:child_process';
import { OrphanGuard } from '../../src/engine/orphan-guard.js';
import { allProcesses } from '../../src/engine/procfs.js';
import { isRunning } from '../../src/testkit/processes.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(20_000);

/** A session leader (its own session, like a PTY's command) that ignores HUP and TERM, with a child that does too. */
function stubbornSession(): ChildProcess {
  return spawn('/bin/sh', ['-c', 'trap "" HUP TERM; while :; do sleep 1; done'], { detached: true, stdio: 'ignore' });
}

const membersOf = (sid: number) => allProcesses().filter((p) => p.sessionId === sid && p.state !== 'Z');

describe('OrphanGuard', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const c of started.splice(0)) {
      for (const p of membersOf(c.pid!)) process.kill(p.pid, 'SIGKILL');
    }
  });

  /** A stubborn session whose loop has started its sleep (two members): its id. */
  async function stubbornSessionRunning(): Promise<number> {
    const leader = stubbornSession();
    started.push(leader);
    const sid = leader.pid!;
    await waitFor(() => membersOf(sid).length >= 2, 'the loop has its sleep');
    return sid;
  }

  it('kills every member of a guarded session when the host side of its pipe closes (the host died)', async () => {
    const guard = new OrphanGuard();
    const sid = await stubbornSessionRunning();
    guard.watch(sid);
    const guardPid = guard.pid!;
    expect(isRunning(guardPid)).toBe(true);

    guard.abandon();
    await waitFor(() => membersOf(sid).length === 0, 'the guarded session is empty', 5_000);
    await waitFor(() => !isRunning(guardPid), 'the guard exits', 5_000);
  });

  /** A guard (lingering `lingerMs` after its last session) watching one stubborn session: the guard's first pid. */
  function guarding(lingerMs: number) {
    const guard = new OrphanGuard(lingerMs);
    const leader = stubbornSession();
    started.push(leader);
    const sid = leader.pid!;
    guard.watch(sid);
    return { guard, sid, first: guard.pid! };
  }

  it('exits without killing anything once every session is released, and starts again for the next', async () => {
    const { guard, sid, first } = guarding(0);
    guard.release(sid);
    expect(guard.pid).toBeUndefined();
    await waitFor(() => !isRunning(first), 'the idle guard exits', 5_000);
    await sleep(200);
    expect(isRunning(sid)).toBe(true);

    guard.watch(sid);
    expect(guard.pid).not.toBe(first);
    expect(isRunning(guard.pid!)).toBe(true);
    guard.release(sid);
  });

  it('stays for the next PTY after its last one ended, exits once it has lingered, and at once when closed idle', async () => {
    const { guard, sid, first } = guarding(300);
    guard.release(sid);
    // Still there: the next PTY is guarded by the same process, with no new bash started.
    expect(guard.pid).toBe(first);
    guard.watch(sid);
    expect(guard.pid).toBe(first);
    guard.release(sid);
    await sleep(100);
    expect(isRunning(first)).toBe(true);
    await waitFor(() => !isRunning(first), 'the idle guard exits after lingering', 5_000);
    expect(guard.pid).toBeUndefined();
    expect(isRunning(sid)).toBe(true);

    guard.watch(sid);
    const second = guard.pid!;
    guard.release(sid);
    guard.stopIfIdle();
    expect(guard.pid).toBeUndefined();
    await waitFor(() => !isRunning(second), 'an idle guard exits at once when the plugin closes', 2_000);
    // Closing with a session still guarded changes nothing.
    guard.watch(sid);
    guard.stopIfIdle();
    expect(isRunning(guard.pid!)).toBe(true);
    guard.release(sid);
    guard.stopIfIdle();
  });

  it('says whether it runs: from the first watch until it exits', async () => {
    const { guard, sid, first } = guarding(0);
    expect(guard.running).toBe(true);
    guard.release(sid);
    expect(guard.running).toBe(false);
    await waitFor(() => !isRunning(first), 'the idle guard exits', 5_000);
    expect(new OrphanGuard().running).toBe(false);
  });

  it('starts again with its list when killed while sessions rely on it, and the new one does the work', async () => {
    const guard = new OrphanGuard(0, 0);
    const sid = await stubbornSessionRunning();
    guard.watch(sid);
    const first = guard.pid!;
    process.kill(first, 'SIGKILL');
    await waitFor(() => guard.pid !== undefined && guard.pid !== first, 'a second guard runs', 5_000);
    expect(guard.running).toBe(true);
    const second = guard.pid!;
    guard.abandon();
    await waitFor(() => membersOf(sid).length === 0, 'the guarded session is empty', 5_000);
    await waitFor(() => !isRunning(second), 'the second guard exits', 5_000);
  });

  /** SIGKILLs the running guard and shows that no other takes its place. */
  async function killedStaysDown(guard: OrphanGuard): Promise<void> {
    process.kill(guard.pid!, 'SIGKILL');
    await waitFor(() => !guard.running, 'the killed guard is seen gone', 5_000);
    await sleep(200);
    expect(guard.pid).toBeUndefined();
  }

  it('is not started again when it dies before it could have run, nor when nothing relies on it', async () => {
    const young = new OrphanGuard(0, 60_000);
    const leader = stubbornSession();
    started.push(leader);
    young.watch(leader.pid!);
    await killedStaysDown(young);
    // The next PTY's watch starts one, with every session still listed: the first is guarded again.
    const next = stubbornSession();
    started.push(next);
    await waitFor(() => membersOf(leader.pid!).length >= 2, 'the first loop has its sleep');
    young.watch(next.pid!);
    expect(young.running).toBe(true);
    young.abandon();
    await waitFor(() => membersOf(leader.pid!).length === 0, 'the first session is ended by the new guard', 5_000);

    const idle = new OrphanGuard(60_000, 0);
    idle.watch(leader.pid!);
    idle.release(leader.pid!);
    await killedStaysDown(idle);
    idle.stopIfIdle();
  });

  it('ignores lines that are not a session id, and a release of an unknown session', async () => {
    const guard = new OrphanGuard();
    guard.release(12345);
    expect(guard.pid).toBeUndefined();
    const leader = stubbornSession();
    started.push(leader);
    guard.watch(leader.pid!);
    for (const junk of ['+', '+abc', '-x', 'hello', '+ 12'])
      (guard as unknown as { send(line: string): void }).send(junk);
    guard.abandon();
    await waitFor(() => membersOf(leader.pid!).length === 0, 'the guarded session is empty', 5_000);
  });
});
