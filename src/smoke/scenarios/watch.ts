import { MATCH_NOTIFY_INTERVAL_MS } from '../../limits.js';
import { type MatchEnvelope, PtyEnvelope, type SpawnResult } from '../../protocol/tool-results.js';
import { sleep } from '../../testkit/waits.js';
import { eventually, expectEqual } from '../expect.js';
import type { Scenario } from '../scenario.js';

const AGENT = 'smoke-agent';
const MODEL = { providerID: 'smoke-provider', modelID: 'smoke-model' };
const BURST = 30;
/** Past the coalescing interval, for a loaded machine. */
const SETTLE_MS = 500;

export const watch: Scenario = {
  name: 'watch',
  summary: `watch rules: a "ready" line wakes an idle session with its agent and model; a burst of ${BURST} matches makes one pty.match now and one with the count; the exit still comes, no match after it`,
  async run(h) {
    const host = await h.host();
    const owner = host.session('ses_smoke_watch');
    host.setHistory(owner.id, [
      { info: { role: 'user', agent: AGENT, model: MODEL } },
      { info: { role: 'assistant' } },
    ]);
    const envelopes = () => host.promptsFor(owner.id).map((p) => PtyEnvelope.parse(JSON.parse(p.body.parts[0]!.text)));
    const matches = () => envelopes().filter((e): e is MatchEnvelope => e.type === 'pty.match');

    const server = await owner.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: [
        '-c',
        `echo booting; sleep 0.2; echo "ready on port 3000"; sleep 0.2; i=0; while [ $i -lt ${BURST} ]; do i=$((i+1)); echo "ERROR $i"; done; exec cat`,
      ],
      description: 'dev server',
      watch: [{ pattern: '^ready on' }],
      notifyOnExit: true,
    });
    const [ready] = await eventually(matches, (m) => m.length > 0, 'a pty.match for the ready line', 'watch: ready');
    expectEqual(
      { ...ready, description: undefined },
      {
        type: 'pty.match',
        id: server.id,
        description: undefined,
        pattern: '^ready on',
        line: 2,
        text: 'ready on port 3000',
        moreMatches: 0,
        status: 'running',
      },
      'pty.match envelope',
    );
    const [prompt] = host.promptsFor(owner.id);
    expectEqual(
      [prompt!.body.agent, prompt!.body.model, prompt!.body.noReply],
      [AGENT, MODEL, undefined],
      'woken turn keeps agent and model (agent, model, noReply)',
    );

    const errors = await owner.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: ['-c', `i=0; while [ $i -lt ${BURST} ]; do i=$((i+1)); echo "ERROR $i"; done; exec cat`],
      description: 'noisy',
      watch: [{ pattern: 'ERROR' }],
      notifyOnExit: true,
    });
    const burst = await eventually(
      () => matches().filter((m) => m.id === errors.id),
      (m) => m.length >= 2,
      'two pty.match for the burst',
      'watch: burst',
      MATCH_NOTIFY_INTERVAL_MS + 5_000,
    );
    expectEqual(
      burst.map((m) => [m.text, m.moreMatches]),
      [
        ['ERROR 1', 0],
        ['ERROR 2', BURST - 2],
      ],
      'the burst coalesced (first line, more matches)',
    );

    await owner.call('pty_write', { id: errors.id, data: 'ERROR after\\n', wait: { pattern: 'ERROR after' } });
    await owner.call('pty_kill', { id: errors.id });
    await eventually(
      envelopes,
      (all) => all.some((e) => e.type === 'pty.exit' && e.id === errors.id),
      'the pty.exit',
      'watch: exit still notified',
    );
    await sleep(MATCH_NOTIFY_INTERVAL_MS + SETTLE_MS);
    expectEqual(
      matches().filter((m) => m.id === errors.id).length,
      2,
      'pty.match notifications after the PTY ended (the held one is dropped)',
    );
    await owner.call('pty_kill', { id: server.id });
  },
};
