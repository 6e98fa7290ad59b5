import type { SpawnResult } from '../../protocol/tool-results.js';
import { eventually, expectEqual, fail, never, within } from '../expect.js';
import { childrenOfSelf, describeProcess, survivorsOf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { QUIET_MS, WAIT_MS } from '../timing.js';

export const deleteInflight: Scenario = {
  name: 'delete-inflight',
  summary:
    'session.deleted while a spawn waits at its permission prompt: the spawn rejects, a late "allow" starts nothing, running PTYs end',
  async run(h) {
    const { host, session } = await h.session('ses_smoke_deleted');
    const before = childrenOfSelf().length;
    const running = await session.call<SpawnResult>('pty_spawn', {
      command: 'sleep',
      args: ['30'],
      description: 'already running',
    });
    const tracked = h.track(running.pid!);
    const withRunning = childrenOfSelf().length;

    session.policy = 'hang';
    const inflight = session.attempt('pty_spawn', {
      command: 'sleep',
      args: ['31'],
      description: 'waiting for approval',
    });
    await eventually(
      () => session.asks.length,
      (n) => n === 2,
      'the second spawn to show its prompt',
      'permission prompts',
    );
    await host.deleteSession(session.id);

    const outcome = await within(inflight, WAIT_MS, 'the in-flight spawn after session.deleted');
    expectEqual(outcome.ok ? 'success' : outcome.code, 'owner_deleted', 'the in-flight spawn outcome');

    // The user answers the stale prompt: still nothing may start.
    session.answerHung('allow');
    await never(
      () => childrenOfSelf().length,
      (n) => n > withRunning,
      `at most ${withRunning} child processes (nothing new)`,
      'children after a late allow',
      QUIET_MS,
    );
    // Deletion alone (no dispose) ends the session's running PTY.
    await eventually(
      () => survivorsOf(tracked).map(describeProcess),
      (s) => s.length === 0,
      'no process left in the deleted session’s PTY',
      'processes of the deleted session',
    );
    await eventually(
      () => childrenOfSelf().map(describeProcess),
      (c) => c.length === before,
      `${before} child processes, as before the scenario`,
      'children after deletion',
    );

    // Every later call of the deleted session is refused, before any prompt.
    const asks = session.asks.length;
    session.policy = 'allow';
    await session.refused('pty_spawn', { command: 'true', description: 'after deletion' }, 'owner_deleted');
    await session.refused('pty_list', {}, 'owner_deleted');
    await session.refused('pty_read', { id: running.id }, 'owner_deleted');
    if (session.asks.length !== asks) fail('prompts after deletion', 'none', String(session.asks.length - asks));
  },
};
