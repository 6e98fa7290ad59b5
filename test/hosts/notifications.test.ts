import {
  NOTIFY_DESCRIPTION_CHARS,
  NOTIFY_LAST_LINE_CHARS,
  NOTIFY_TIMEOUT_MS,
  WAKE_LOOKUP_MESSAGES,
} from '../../src/limits.js';
import type { NotificationRecord } from '../../src/testkit/fake-host.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';
import { HOSTS, Session, useHost } from './fixtures/suite.js';
import { V1HostFixture, v1Fixture } from '../../src/testkit/fake-v1-host.js';
import { V2HostFixture } from '../../src/testkit/fake-v2-host.js';

jest.setTimeout(90_000);

function notificationFor(records: readonly NotificationRecord[], id: string): NotificationRecord | undefined {
  return records.find((n) => n.envelope.id === id);
}

/** Warnings the plugin logged, in either host's log. */
function warnings(host: unknown): string[] {
  const logs = (host as V1HostFixture | V2HostFixture).logs;
  return logs.filter((l) => l.level === 'warn').map((l) => l.message);
}

describe.each(HOSTS)('exit notifications through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('sends a pty.exit envelope with a clipped description and the last line', async () => {
    const s = new Session(ctx.host, 'ses_notify');
    const description = `builds the whole thing ${'and more '.repeat(20)}`.trim();
    const { id } = await s.spawn({
      command: 'sh',
      args: ['-c', 'echo first; echo last words; echo; exit 3'],
      description,
      notifyOnExit: true,
    });
    const n = await waitFor(() => notificationFor(ctx.host.notifications, id), 'the exit notification');
    expect(n.sessionID).toBe('ses_notify');
    expect(n.envelope).toEqual({
      type: 'pty.exit',
      id,
      description: expect.any(String),
      exitCode: 3,
      exitSignal: null,
      exitSignalInferred: false,
      status: 'exited',
      timeoutSeconds: null,
      timedOut: false,
      lingering: null,
      outputLines: expect.any(Number),
      lastLine: 'last words',
    });
    expect(n.envelope.description.length).toBeLessThanOrEqual(NOTIFY_DESCRIPTION_CHARS);
    expect(n.envelope.description).toBe(`${description.slice(0, NOTIFY_DESCRIPTION_CHARS - 1)}…`);
    expect(n.label).toBe(`PTY exited: ${n.envelope.description}`);
    expect(JSON.parse(n.text)).toEqual(n.envelope);
    if (ctx.host instanceof V2HostFixture) {
      const [call] = ctx.host.syntheticCalls;
      expect(call!.input).toEqual({
        sessionID: 'ses_notify',
        text: n.text,
        description: n.label,
        metadata: { label: n.label, localPty: n.envelope },
        delivery: 'steer',
      });
      expect(call!.options?.signal).toBeInstanceOf(AbortSignal);
    } else if (ctx.host instanceof V1HostFixture) {
      const [call] = ctx.host.promptCalls;
      expect(call!.body.parts).toEqual([
        { type: 'text', text: n.text, synthetic: true, metadata: { label: n.label, localPty: n.envelope } },
      ]);
    }
    expect(ctx.host.notifications).toHaveLength(1);
  });

  it('quotes the start of a long last line, clipped, and of one whose start is blank', async () => {
    const s = new Session(ctx.host, 'ses_notify_long');
    // 300,000 characters with no line feed: the open line is kept as spans of the buffer's ring.
    const long = await s.spawn({
      command: 'sh',
      args: ['-c', "head -c 300000 /dev/zero | tr '\\0' x; printf END"],
      notifyOnExit: true,
    });
    const blankHead = await s.spawn({
      command: 'sh',
      args: ['-c', "printf 'older\\n'; head -c 250 /dev/zero | tr '\\0' ' '; printf 'late\\n\\n'"],
      notifyOnExit: true,
    });
    const lastLineOf = async (id: string) => {
      const { envelope } = await waitFor(() => notificationFor(ctx.host.notifications, id), `the exit of ${id}`);
      return envelope.type === 'pty.exit' ? envelope.lastLine : `not an exit: ${envelope.type}`;
    };
    expect(await lastLineOf(long.id)).toBe(`${'x'.repeat(NOTIFY_LAST_LINE_CHARS - 1)}…`);
    expect(await lastLineOf(blankHead.id)).toBe(`${' '.repeat(NOTIFY_LAST_LINE_CHARS - 1)}…`);
  });

  it('reports a timeout in the envelope', async () => {
    const s = new Session(ctx.host, 'ses_notify_timeout');
    const { id } = await s.spawn({
      command: 'sleep',
      args: ['30'],
      description: 'slow',
      timeoutSeconds: 1,
      notifyOnExit: true,
    });
    const n = await waitFor(() => notificationFor(ctx.host.notifications, id), 'the timeout notification');
    expect(n.envelope).toMatchObject({
      type: 'pty.exit',
      id,
      status: 'timeout',
      timedOut: true,
      timeoutSeconds: 1,
      lastLine: '',
    });
  });

  it('sends none without notifyOnExit', async () => {
    const s = new Session(ctx.host, 'ses_quiet');
    const quiet = await s.spawn({ command: 'true', description: 'quiet' });
    await s.untilStatus(quiet.id, ['exited']);
    // A later notifying PTY shows the pipeline is working: its notification is the only one.
    const loud = await s.spawn({ command: 'true', description: 'loud', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, loud.id), 'the loud notification');
    expect(ctx.host.notifications.map((n) => n.envelope.id)).toEqual([loud.id]);
  });

  it('sends none for a PTY ended by its owner’s deletion', async () => {
    const doomed = new Session(ctx.host, 'ses_deleted');
    const other = new Session(ctx.host, 'ses_witness');
    const { id } = await doomed.spawn({ command: 'cat', description: 'dies with its session', notifyOnExit: true });
    await ctx.host.deleteSession('ses_deleted');
    const loud = await other.spawn({ command: 'true', description: 'witness', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, loud.id), 'the witness notification');
    await sleep(200);
    expect(notificationFor(ctx.host.notifications, id)).toBeUndefined();
    expect(ctx.host.notifications.every((n) => n.sessionID === 'ses_witness')).toBe(true);
  });

  it('sends none for PTYs ended by close', async () => {
    const s = new Session(ctx.host, 'ses_closing');
    await s.spawn({ command: 'cat', description: 'ended by close', notifyOnExit: true });
    await s.spawn({ command: 'sleep', args: ['30'], description: 'also ended by close', notifyOnExit: true });
    await ctx.host.close();
    await sleep(300);
    expect(ctx.host.notifications).toEqual([]);
  });

  it('bounds a delivery the host never answers by NOTIFY_TIMEOUT_MS; the next still arrives; close is not held up', async () => {
    const s = new Session(ctx.host, 'ses_hung');
    ctx.host.notifyMode = 'never';
    const first = await s.spawn({ command: 'true', description: 'into the void', notifyOnExit: true });
    const stuck = await waitFor(() => notificationFor(ctx.host.notifications, first.id), 'the first delivery attempt');
    const startedAt = Date.now();

    ctx.host.notifyMode = 'answer';
    const second = await s.spawn({ command: 'true', description: 'gets through', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, second.id), 'the second notification');

    await waitFor(() => stuck.aborted, 'the hung delivery to be abandoned', NOTIFY_TIMEOUT_MS + 15_000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(NOTIFY_TIMEOUT_MS - 1_000);
    await waitFor(
      () => warnings(ctx.host).includes('exit notification not delivered'),
      'the failed delivery to be logged',
    );

    ctx.host.notifyMode = 'never';
    const third = await s.spawn({ command: 'true', description: 'pending at close', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, third.id), 'the third delivery attempt');
    const closing = Date.now();
    await ctx.host.close();
    expect(Date.now() - closing).toBeLessThan(NOTIFY_TIMEOUT_MS);
  });

  it('gives up a delivery under way at once when its session is deleted, as at close', async () => {
    const s = new Session(ctx.host, 'ses_deleted_while_told');
    ctx.host.notifyMode = 'never';
    const { id } = await s.spawn({ command: 'true', notifyOnExit: true });
    const stuck = await waitFor(() => notificationFor(ctx.host.notifications, id), 'the delivery attempt');
    const deletedAt = Date.now();
    await ctx.host.deleteSession(s.id);
    await waitFor(() => stuck.aborted, 'the delivery to be given up', NOTIFY_TIMEOUT_MS);
    expect(Date.now() - deletedAt).toBeLessThan(NOTIFY_TIMEOUT_MS / 2);
  });

  it('logs a delivery the host refuses, and keeps delivering', async () => {
    const s = new Session(ctx.host, 'ses_refused');
    ctx.host.notifyMode = 'fail';
    const first = await s.spawn({ command: 'true', description: 'refused', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, first.id), 'the refused delivery');
    await waitFor(() => warnings(ctx.host).includes('exit notification not delivered'), 'the refusal to be logged');
    ctx.host.notifyMode = 'answer';
    const second = await s.spawn({ command: 'true', description: 'accepted', notifyOnExit: true });
    await waitFor(() => notificationFor(ctx.host.notifications, second.id), 'the next notification');
  });
});

describe('V1 notifications keep the session’s agent and model', () => {
  const ctx = useHost(v1Fixture);
  let host: V1HostFixture;
  beforeEach(() => {
    host = ctx.host as V1HostFixture;
  });

  it('wakes an idle session as a new turn with the agent and model of its last user message', async () => {
    host.messages.set('ses_idle', [
      { info: { role: 'user', agent: 'build', model: { providerID: 'old', modelID: 'older' } } },
      { info: { role: 'user', agent: 'plan', model: { providerID: 'p1', modelID: 'm1' } } },
      { info: { role: 'assistant' } },
    ]);
    const s = new Session(host, 'ses_idle');
    const { id } = await s.spawn({ command: 'true', description: 'wake me', notifyOnExit: true });
    await waitFor(() => notificationFor(host.notifications, id), 'the wake-up');
    expect(host.messageCalls).toEqual([{ id: 'ses_idle', limit: WAKE_LOOKUP_MESSAGES }]);
    const [call] = host.promptCalls;
    expect(call!.path).toEqual({ id: 'ses_idle' });
    expect(call!.body).toMatchObject({ agent: 'plan', model: { providerID: 'p1', modelID: 'm1' } });
    expect(call!.body.noReply).toBeUndefined();
  });

  it('queues into a busy session with noReply (keeping its agent and model), and wakes it again once idle', async () => {
    const s = new Session(host, 'ses_busy');
    await host.setStatus('ses_busy', 'busy');
    const busy = await s.spawn({ command: 'true', description: 'while busy', notifyOnExit: true });
    await waitFor(() => notificationFor(host.notifications, busy.id), 'the queued notification');
    // OpenCode runs a turn's next step with the agent and model of its last user message, a noReply one too
    // (test/e2e/local-pty.e2e.ts): a queued message without them would switch the model mid-turn.
    expect(host.promptCalls[0]!.body).toMatchObject({
      noReply: true,
      agent: 'build',
      model: { providerID: 'mock', modelID: 'mock-model' },
    });
    expect(host.messageCalls).toEqual([{ id: 'ses_busy', limit: WAKE_LOOKUP_MESSAGES }]);

    await host.setStatus('ses_busy', 'idle');
    const idle = await s.spawn({ command: 'true', description: 'while idle', notifyOnExit: true });
    await waitFor(() => notificationFor(host.notifications, idle.id), 'the wake-up');
    expect(host.promptCalls[1]!.body).toMatchObject({
      agent: 'build',
      model: { providerID: 'mock', modelID: 'mock-model' },
    });
    expect(host.promptCalls[1]!.body.noReply).toBeUndefined();
  });

  it('keeps the agent and model of the last user message the events showed, however many steps came after it', async () => {
    // A long turn: the newest WAKE_LOOKUP_MESSAGES messages are all assistant steps, no user message among them.
    host.messages.set(
      'ses_long',
      Array.from({ length: WAKE_LOOKUP_MESSAGES }, () => ({ info: { role: 'assistant' } })),
    );
    await host.userMessage('ses_long', 'build', { providerID: 'p0', modelID: 'm0' });
    await host.userMessage('ses_long', 'plan', { providerID: 'p1', modelID: 'm1' });
    await host.userMessage('ses_other', 'build', { providerID: 'p2', modelID: 'm2' });
    const s = new Session(host, 'ses_long');
    const { id } = await s.spawn({ command: 'true', description: 'after a long turn', notifyOnExit: true });
    await waitFor(() => notificationFor(host.notifications, id), 'the wake-up');
    expect(host.promptCalls[0]!.body).toMatchObject({ agent: 'plan', model: { providerID: 'p1', modelID: 'm1' } });
    expect(host.promptCalls[0]!.body.noReply).toBeUndefined();
    // The events sufficed: the session's messages were not read.
    expect(host.messageCalls).toEqual([]);
  });

  it('queues with noReply when no user message says which agent and model to keep', async () => {
    host.messages.set('ses_new', [{ info: { role: 'assistant' } }]);
    const s = new Session(host, 'ses_new');
    const { id } = await s.spawn({ command: 'true', description: 'no model known', notifyOnExit: true });
    await waitFor(() => notificationFor(host.notifications, id), 'the notification');
    expect(host.promptCalls[0]!.body).toMatchObject({ noReply: true });
    expect(host.promptCalls[0]!.body.model).toBeUndefined();
  });
});
