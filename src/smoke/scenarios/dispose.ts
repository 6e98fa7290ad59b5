import type { SpawnResult } from '../../protocol/tool-results.js';
import { eventually, expectEqual, expectThat, fail } from '../expect.js';
import { readUntil, texts } from '../harness.js';
import { describeProcess, survivorsOf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { CLOSE_TIMEOUT_MS } from '../../limits.js';

const COMMANDS: ReadonlyArray<{ command: string; args: string[]; members: number }> = [
  // Background jobs in the PTY's session, including one in its own process group (set -m).
  { command: 'sh', args: ['-c', 'sleep 30 & set -m; sleep 31 & echo started; wait'], members: 3 },
  { command: 'cat', args: [], members: 1 },
  { command: 'sleep', args: ['32'], members: 1 },
];

export const dispose: Scenario = {
  name: 'dispose',
  summary:
    'plugin dispose() ends every PTY (background jobs and other process groups of the session too) and then refuses calls',
  async run(h) {
    const { host, session } = await h.session('ses_smoke_dispose');
    const tracked = [];
    for (const c of COMMANDS) {
      const pty = await session.call<SpawnResult>('pty_spawn', {
        command: c.command,
        args: c.args,
        description: `dispose ${c.command}`,
      });
      if (c.command === 'sh')
        await readUntil(session, pty.id, (l) => texts(l).includes('started'), 'the jobs to start');
      const t = h.track(pty.pid!);
      await eventually(
        () => survivorsOf(t).map(describeProcess),
        (m) => m.length >= c.members,
        `at least ${c.members} processes`,
        `the PTY session of ${c.command}`,
      );
      tracked.push(t);
    }
    const start = performance.now();
    await host.dispose();
    const took = performance.now() - start;
    const left = tracked.flatMap((t) => survivorsOf(t));
    if (left.length > 0)
      fail('PTY sessions after dispose() resolved', 'no process left', left.map(describeProcess).join(', '));
    expectThat(Math.round(took), (ms) => ms < CLOSE_TIMEOUT_MS, `under ${CLOSE_TIMEOUT_MS} ms`, 'dispose() duration');
    const after = await session.attempt('pty_list', {});
    expectEqual(after.ok ? 'success' : after.code, 'closing', 'pty_list after dispose');
  },
};
