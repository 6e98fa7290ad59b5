import { ExitEnvelope, type SpawnResult } from '../../protocol/tool-results.js';
import { eventually, expectEqual, expectThat } from '../expect.js';
import { ended } from '../harness.js';
import type { Scenario } from '../scenario.js';
import { TERMINATE_GRACE_MS } from '../../limits.js';

const TIMEOUT_SECONDS = 1;

export const timeout: Scenario = {
  name: 'timeout',
  summary: 'timeoutSeconds: 1 ends a sleep 30 after about a second with status timeout (and says so in pty.exit)',
  async run(h) {
    const { host, session } = await h.session('ses_smoke_timeout');
    const start = performance.now();
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'sleep',
      args: ['30'],
      description: 'timeout probe',
      timeoutSeconds: TIMEOUT_SECONDS,
      notifyOnExit: true,
    });
    const view = await ended(session, pty.id, TIMEOUT_SECONDS * 1_000 + TERMINATE_GRACE_MS + 2_000);
    const elapsed = performance.now() - start;
    expectEqual([view.status, view.timedOut], ['timeout', true], 'status and timedOut after the timeout');
    expectThat(
      Math.round(elapsed),
      (ms) => ms >= TIMEOUT_SECONDS * 1_000 && ms < TIMEOUT_SECONDS * 1_000 + TERMINATE_GRACE_MS,
      `between ${TIMEOUT_SECONDS * 1_000} and ${TIMEOUT_SECONDS * 1_000 + TERMINATE_GRACE_MS} ms (sleep ends on TERM)`,
      'time until the PTY ended',
    );
    const [prompt] = await eventually(
      () => host.promptsFor(session.id),
      (p) => p.length > 0,
      'a pty.exit notification',
      'timeout notification',
    );
    const envelope = ExitEnvelope.parse(JSON.parse(prompt!.body.parts[0]!.text));
    expectEqual(
      [envelope.status, envelope.timedOut, envelope.timeoutSeconds],
      ['timeout', true, TIMEOUT_SECONDS],
      'pty.exit envelope (status, timedOut, timeoutSeconds)',
    );
  },
};
