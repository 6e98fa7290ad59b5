import type { KillResult, SpawnResult } from '../../protocol/tool-results.js';
import { eventually, expectEqual, expectThat, fail } from '../expect.js';
import { readUntil, texts } from '../harness.js';
import { describeProcess, survivorsOf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { TERMINATE_GRACE_MS } from '../../limits.js';

/** Ignores TERM and HUP (and so does every child it starts: ignored signals survive exec). */
const STUBBORN = 'trap "" TERM HUP; echo ready; while :; do sleep 1; done';
/** How long past the grace period the KILL sweep may take. */
const KILL_SWEEP_MARGIN_MS = 1_500;

export const escalation: Scenario = {
  name: 'escalation',
  summary: `pty_kill of a command ignoring TERM and HUP: KILL after the ${TERMINATE_GRACE_MS} ms grace, no process left`,
  async run(h) {
    const { session } = await h.session('ses_smoke_escalation');
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: ['-c', STUBBORN, 'local-pty-smoke-stubborn'],
      description: 'stubborn',
    });
    await readUntil(session, pty.id, (l) => texts(l).includes('ready'), 'the trap to be set ("ready")');
    const tracked = h.track(pty.pid!);
    if (tracked.terminalSid === null) fail('the PTY session', 'a session leader under script', 'none');
    // "ready" is printed before the loop forks its first sleep, and each sleep ends a moment before the next begins:
    // one look could see sh alone (it did, once in a full test run), so look until the sleep is there.
    await eventually(
      () => survivorsOf(tracked).length,
      (n) => n >= 2,
      'at least 2 processes (sh and sleep)',
      'processes in the PTY session before the kill',
    );

    const start = performance.now();
    const killed = await session.call<KillResult>('pty_kill', { id: pty.id });
    const took = performance.now() - start;
    const left = survivorsOf(tracked);
    if (left.length > 0)
      fail(
        'the PTY session after pty_kill returned',
        'no process left',
        `${left.length}: ${left.map(describeProcess).join(', ')}`,
      );
    expectEqual(killed.status, 'killed', 'status after pty_kill');
    expectThat(
      Math.round(took),
      (ms) => ms >= TERMINATE_GRACE_MS && ms < TERMINATE_GRACE_MS + KILL_SWEEP_MARGIN_MS,
      `at least the ${TERMINATE_GRACE_MS} ms grace and under ${TERMINATE_GRACE_MS + KILL_SWEEP_MARGIN_MS} ms`,
      'pty_kill duration',
    );
    expectEqual(
      [killed.exitCode, killed.signal],
      [137, 'SIGKILL'],
      'exit code and signal (128+9: the command was KILLed)',
    );
  },
};
