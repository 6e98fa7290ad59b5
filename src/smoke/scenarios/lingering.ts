import { allProcesses } from '../../engine/procfs.js';
import { expectEqual, expectThat, fail } from '../expect.js';
import { ended } from '../harness.js';
import type { KillResult, PtyDescription } from '../../protocol/tool-results.js';
import type { Scenario } from '../scenario.js';

/** Live members of a terminal session, read from /proc. */
export function liveMembers(sid: number): number[] {
  return allProcesses()
    .filter((p) => p.sessionId === sid && p.state !== 'Z')
    .map((p) => p.pid);
}

export const lingering: Scenario = {
  name: 'lingering',
  summary:
    'a program that backgrounds a server and exits: pty_list says lingering with the member; pty_kill ends it and returns with the session empty',
  async run(h) {
    const { session } = await h.session('ses_smoke_lingering');
    const pty = await session.call<PtyDescription>('pty_spawn', {
      command: 'bash',
      args: ['-c', 'nohup sleep 300 >/dev/null 2>&1 & sleep 0.3; echo started', 'local-pty-smoke-lingering'],
      description: 'backgrounds a server',
    });
    const sid = pty.commandPid;
    if (sid === null) fail('the terminal session id (commandPid)', 'a pid', 'null');
    const listed = (await ended(session, pty.id)) as PtyDescription;
    expectEqual([listed.status, listed.exitCode], ['lingering', 0], 'status and exit code after the program exited');
    expectEqual(listed.lingering?.count, 1, 'lingering member count');
    expectEqual(listed.lingering?.members[0]?.command, 'sleep 300', 'the lingering member as listed');
    expectEqual(liveMembers(sid).length, 1, 'live members of the session in /proc');

    const killed = await session.call<KillResult>('pty_kill', { id: pty.id });
    const left = liveMembers(sid);
    if (left.length > 0)
      fail('the terminal session when pty_kill returned', 'empty', `${left.length} left: ${left.join(', ')}`);
    expectEqual(
      [killed.status, killed.lingering, killed.survivors],
      ['killed', null, null],
      'status, lingering and survivors after pty_kill',
    );
    expectThat(killed.exitCode, (c) => c === 0, 'the program’s own exit code (0)', 'exit code after pty_kill');
  },
};
