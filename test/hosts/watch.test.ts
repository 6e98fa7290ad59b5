import { MATCH_NOTIFY_INTERVAL_MS, NOTIFY_DESCRIPTION_CHARS } from '../../src/limits.js';
import type { NotificationRecord } from '../../src/testkit/fake-host.js';
import { type V1HostFixture, v1Fixture } from '../../src/testkit/fake-v1-host.js';
import { compileLinearPattern, type LinearPattern } from '../../src/patterns/linear-pattern.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';
import { HOSTS, Session, useHost } from './fixtures/suite.js';

jest.setTimeout(90_000);

const matchesOf = (records: readonly NotificationRecord[], id: string) =>
  records.filter((n) => n.envelope.type === 'pty.match' && n.envelope.id === id);

describe.each(HOSTS)('watch rules through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it("a PTY whose rules fail loses its own watch only: another PTY's rules still notify, and nothing is thrown", async () => {
    // Compiled patterns are kept and handed out again for the same source: this one's scan fails for its PTY.
    const failing = compileLinearPattern('test', 'will-fail-to-scan') as {
      -readonly [K in keyof LinearPattern]: LinearPattern[K];
    };
    const scan = failing.matchingLines;
    failing.matchingLines = () => {
      throw new Error('a rule that fails');
    };
    try {
      const s = new Session(ctx.host, 'ses_watch_failing');
      const broken = await s.spawn({
        command: 'sh',
        args: ['-c', 'echo will-fail-to-scan; sleep 0.2; echo second; sleep 30'],
        description: 'broken watch',
        watch: [{ pattern: 'will-fail-to-scan' }],
      });
      await waitFor(
        async () => (await s.read(broken.id)).lines.some((l) => l.text === 'second'),
        'the broken PTY to print twice',
      );
      const healthy = await s.spawn({
        command: 'sh',
        args: ['-c', 'sleep 0.2; echo ready now; sleep 30'],
        description: 'healthy watch',
        watch: [{ pattern: 'ready' }],
      });
      await waitFor(() => matchesOf(ctx.host.notifications, healthy.id).length > 0, "the healthy PTY's match");
      expect(matchesOf(ctx.host.notifications, broken.id)).toEqual([]);
    } finally {
      failing.matchingLines = scan;
    }
  });

  it('wakes the session when a watched dev server says it is ready', async () => {
    const s = new Session(ctx.host, 'ses_watch_ready');
    const description = `dev server ${'x'.repeat(NOTIFY_DESCRIPTION_CHARS)}`;
    const { id } = await s.spawn({
      command: 'sh',
      args: ['-c', 'echo compiling; sleep 0.3; echo "Server listening on http://127.0.0.1:3000"; sleep 30'],
      description,
      watch: [{ pattern: 'ERROR' }, { pattern: 'listening on' }],
    });
    const [n] = await waitFor(
      () => matchesOf(ctx.host.notifications, id).length > 0 && matchesOf(ctx.host.notifications, id),
      'the pty.match notification',
    );
    expect(n!.sessionID).toBe('ses_watch_ready');
    expect(n!.envelope).toEqual({
      type: 'pty.match',
      id,
      description: `${description.slice(0, NOTIFY_DESCRIPTION_CHARS - 1)}…`,
      pattern: 'listening on',
      line: 2,
      text: 'Server listening on http://127.0.0.1:3000',
      moreMatches: 0,
      status: 'running',
    });
    expect(n!.label).toBe(`PTY output matched: ${n!.envelope.description}`);
    expect(JSON.parse(n!.text)).toEqual(n!.envelope);
  });

  it('coalesces a burst into one now and one carrying the count; none after the PTY ends; the exit still comes', async () => {
    const s = new Session(ctx.host, 'ses_watch_burst');
    const { id } = await s.spawn({
      command: 'sh',
      args: ['-c', 'i=0; while [ $i -lt 50 ]; do i=$((i+1)); echo "ERROR $i"; done; sleep 30'],
      description: 'burst',
      watch: [{ pattern: 'error', ignoreCase: true }],
      notifyOnExit: true,
    });
    const started = Date.now();
    await waitFor(
      () => matchesOf(ctx.host.notifications, id).length >= 2 || undefined,
      'the second, coalesced notification',
    );
    const [first, second] = matchesOf(ctx.host.notifications, id);
    expect(first!.envelope).toMatchObject({ line: 1, text: 'ERROR 1', moreMatches: 0 });
    expect(second!.envelope).toMatchObject({ line: 2, text: 'ERROR 2', moreMatches: 48 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(MATCH_NOTIFY_INTERVAL_MS - 100);
    await s.kill(id);
    await waitFor(
      () => ctx.host.notifications.find((n) => n.envelope.type === 'pty.exit' && n.envelope.id === id),
      'the exit notification',
    );
    await sleep(MATCH_NOTIFY_INTERVAL_MS + 300);
    expect(matchesOf(ctx.host.notifications, id)).toHaveLength(2);
  });

  it('sends none once a PTY that keeps matching is killed, its owner deleted, or the plugin closed', async () => {
    const noisy = ['-c', 'while true; do echo "ERROR again"; sleep 0.2; done'];
    const s = new Session(ctx.host, 'ses_watch_stop');
    const killed = await s.spawn({ command: 'sh', args: noisy, description: 'noisy', watch: [{ pattern: 'ERROR' }] });
    const d = new Session(ctx.host, 'ses_watch_deleted');
    const deleted = await d.spawn({ command: 'sh', args: noisy, description: 'noisy', watch: [{ pattern: 'ERROR' }] });
    await waitFor(
      () =>
        matchesOf(ctx.host.notifications, killed.id).length > 0 &&
        matchesOf(ctx.host.notifications, deleted.id).length > 0,
      'the first matches',
    );
    await s.kill(killed.id);
    await ctx.host.deleteSession('ses_watch_deleted');
    const counts = [killed.id, deleted.id].map((id) => matchesOf(ctx.host.notifications, id).length);
    await sleep(MATCH_NOTIFY_INTERVAL_MS * 2);
    expect([killed.id, deleted.id].map((id) => matchesOf(ctx.host.notifications, id).length)).toEqual(counts);

    const c = new Session(ctx.host, 'ses_watch_closed');
    const closed = await c.spawn({ command: 'sh', args: noisy, description: 'noisy', watch: [{ pattern: 'ERROR' }] });
    await waitFor(() => matchesOf(ctx.host.notifications, closed.id).length > 0, 'a match before close');
    await ctx.host.close();
    const afterClose = matchesOf(ctx.host.notifications, closed.id).length;
    await sleep(MATCH_NOTIFY_INTERVAL_MS + 300);
    expect(matchesOf(ctx.host.notifications, closed.id)).toHaveLength(afterClose);
  });
});

describe('watch rules wake an idle V1 session with its agent and model', () => {
  const ctx = useHost(v1Fixture);

  it('keeps the agent and model of the last user message', async () => {
    const host = ctx.host as V1HostFixture;
    await host.userMessage('ses_watch_idle', 'plan', { providerID: 'p1', modelID: 'm1' });
    const s = new Session(host, 'ses_watch_idle');
    const { id } = await s.spawn({
      command: 'sh',
      args: ['-c', 'echo ready; sleep 30'],
      description: 'server',
      watch: [{ pattern: '^ready$' }],
    });
    await waitFor(() => matchesOf(host.notifications, id).length > 0, 'the wake-up');
    const call = host.promptCalls.find((p) => p.body.parts[0]?.text.includes('pty.match'));
    expect(call!.body).toMatchObject({ agent: 'plan', model: { providerID: 'p1', modelID: 'm1' } });
    expect(call!.body.noReply).toBeUndefined();
  });
});
