import { ExitEnvelope, type SpawnResult } from '../../protocol/tool-results.js';
import { sleep } from '../../testkit/waits.js';
import { eventually, expectEqual, expectThat } from '../expect.js';
import { ended } from '../harness.js';
import type { Scenario } from '../scenario.js';
import { QUIET_MS } from '../timing.js';

const AGENT = 'smoke-agent';
const MODEL = { providerID: 'smoke-provider', modelID: 'smoke-model' };

export const exitNotify: Scenario = {
  name: 'exit-notify',
  summary:
    'notifyOnExit sends one pty.exit envelope: waking an idle session with its agent and model, queued (noReply) into a busy one',
  async run(h) {
    const host = await h.host();
    const idle = host.session('ses_smoke_idle');
    host.setHistory(idle.id, [{ info: { role: 'user', agent: AGENT, model: MODEL } }, { info: { role: 'assistant' } }]);
    const pty = await idle.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: ['-c', 'echo last words; exit 3'],
      description: 'exit notification probe',
      notifyOnExit: true,
    });
    const [prompt] = await eventually(
      () => host.promptsFor(idle.id),
      (p) => p.length > 0,
      'a promptAsync for the owner',
      'exit notification (idle)',
    );
    expectEqual(prompt!.body.agent, AGENT, 'woken turn: agent');
    expectEqual(prompt!.body.model, MODEL, 'woken turn: model');
    expectEqual(prompt!.body.noReply, undefined, 'woken turn: noReply');
    expectEqual(prompt!.body.parts.length, 1, 'parts of the notification');
    const part = prompt!.body.parts[0]!;
    expectEqual(part.synthetic, true, 'the notification part is synthetic');
    expectEqual(part.metadata?.label, 'PTY exited: exit notification probe', 'notification label');
    const envelope = ExitEnvelope.parse(JSON.parse(part.text));
    expectEqual(
      {
        type: envelope.type,
        id: envelope.id,
        status: envelope.status,
        exitCode: envelope.exitCode,
        timedOut: envelope.timedOut,
        lastLine: envelope.lastLine,
      },
      { type: 'pty.exit', id: pty.id, status: 'exited', exitCode: 3, timedOut: false, lastLine: 'last words' },
      'pty.exit envelope',
    );
    expectEqual(host.historyReads(idle.id), 1, 'history reads to find the agent and model');

    // A busy session gets the message queued for its next step, not a new turn.
    const busy = host.session('ses_smoke_busy');
    await host.event({ type: 'session.status', properties: { sessionID: busy.id, status: { type: 'busy' } } });
    const busyPty = await busy.call<SpawnResult>('pty_spawn', {
      command: 'true',
      description: 'busy probe',
      notifyOnExit: true,
    });
    const [queued] = await eventually(
      () => host.promptsFor(busy.id),
      (p) => p.length > 0,
      'a promptAsync for the busy owner',
      'exit notification (busy)',
    );
    expectEqual(
      [queued!.body.noReply, queued!.body.agent, queued!.body.model],
      [true, undefined, undefined],
      'queued notification: noReply, agent, model',
    );
    expectThat(
      ExitEnvelope.parse(JSON.parse(queued!.body.parts[0]!.text)),
      (e) => e.type === 'pty.exit' && e.id === busyPty.id && e.exitCode === 0,
      `a pty.exit envelope for ${busyPty.id} with exit code 0`,
      'queued envelope',
    );

    // Without notifyOnExit: nothing.
    const quiet = host.session('ses_smoke_quiet');
    const quietPty = await quiet.call<SpawnResult>('pty_spawn', { command: 'true', description: 'no notification' });
    await ended(quiet, quietPty.id);
    await sleep(QUIET_MS);
    expectEqual(host.promptsFor(quiet.id).length, 0, 'prompts for a PTY without notifyOnExit');
    expectEqual(
      [host.promptsFor(idle.id).length, host.promptsFor(busy.id).length],
      [1, 1],
      'notifications per exit (idle, busy)',
    );
  },
};
