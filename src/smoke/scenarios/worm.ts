import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TERMINATE_GRACE_MS } from '../../limits.js';
import { expectEqual, expectThat, fail } from '../expect.js';
import { sleep } from '../../testkit/waits.js';
import { ended } from '../harness.js';
import type { KillResult, PtyDescription } from '../../protocol/tool-results.js';
import type { Scenario } from '../scenario.js';

/** Past the grace period, what the freeze may take on a busy runner (the target is 200 ms). */
const WORM_SWEEP_MARGIN_MS = 1_000;
/** How long the heartbeat must stay still after pty_kill for the worm to count as dead. */
const STILL_MS = 300;

export const worm: Scenario = {
  name: 'worm',
  summary: `a fork-and-exit worm (1 ms a generation, TERM/HUP ignored) is ended by pty_kill within the ${TERMINATE_GRACE_MS} ms grace + ${WORM_SWEEP_MARGIN_MS} ms`,
  async run(h) {
    const { session } = await h.session('ses_smoke_worm');
    const heartbeat = join(h.projectDir, 'worm.beat');
    const program = [
      'import os, signal, time',
      'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      'signal.signal(signal.SIGHUP, signal.SIG_IGN)',
      `beat = os.open(${JSON.stringify(heartbeat)}, os.O_WRONLY | os.O_CREAT | os.O_APPEND)`,
      'while True:',
      '    time.sleep(0.001)',
      '    if os.fork() > 0:',
      '        os._exit(0)',
      '    os.write(beat, b".")',
    ].join('\n');
    const beats = () => (existsSync(heartbeat) ? statSync(heartbeat).size : 0);
    const pty = await session.call<PtyDescription>('pty_spawn', {
      command: 'python3',
      args: ['-c', program],
      description: 'worm',
    });
    const listed = await ended(session, pty.id);
    expectEqual(listed.status, 'lingering', 'status once the worm’s first generation exited');
    const before = beats();
    await sleep(100);
    expectThat(beats(), (n) => n > before, 'growing', 'the worm’s heartbeat before pty_kill');

    const start = performance.now();
    const killed = await session.call<KillResult>('pty_kill', { id: pty.id });
    const took = performance.now() - start;
    const after = beats();
    await sleep(STILL_MS);
    if (beats() !== after)
      fail('the worm’s heartbeat after pty_kill returned', 'still', `${beats() - after} more generations`);
    expectEqual([killed.status, killed.survivors], ['killed', null], 'status and survivors after pty_kill');
    expectThat(
      Math.round(took),
      (ms) => ms < TERMINATE_GRACE_MS + WORM_SWEEP_MARGIN_MS,
      `under ${TERMINATE_GRACE_MS + WORM_SWEEP_MARGIN_MS} ms`,
      'pty_kill duration',
    );
  },
};
