import LocalPtyV2 from '../../src/v2.js';
import { v2DeletedSessionID, type V2Context } from '../../src/hosts/opencode-v2.js';
import { PTY_TOOLS } from '../../src/tools/definitions.js';
import { childrenOfSelf } from '../../src/testkit/processes.js';
import { makeDirs } from '../../src/testkit/fake-host.js';
import { waitFor } from '../../src/testkit/waits.js';
import { Session, fails } from './fixtures/suite.js';
import { liveChildren } from '../../src/testkit/processes.js';
import { EventChannel, V2HostFixture, V2TaggedError } from '../../src/testkit/fake-v2-host.js';

jest.setTimeout(60_000);

/** Runs `body` with a V2 fixture built from `overrides`, then closes it and checks nothing is left running. */
async function withV2(overrides: Partial<V2Context>, body: (host: V2HostFixture) => Promise<void>): Promise<void> {
  const host = await V2HostFixture.create(overrides);
  try {
    await body(host);
  } finally {
    await host.close();
    host.cleanup();
    await waitFor(
      () => childrenOfSelf({ withOrphanGuard: true }).filter((c) => c.state !== 'Z').length === 0 || undefined,
      'no child process left',
    );
  }
}

describe('the V2 plugin module', () => {
  it('default-exports the Plugin.define shape with id local-pty', async () => {
    expect(LocalPtyV2.id).toBe('local-pty');
    expect(typeof LocalPtyV2.setup).toBe('function');
    const fixture = new V2HostFixture(makeDirs());
    const cleanup = await LocalPtyV2.setup(fixture.ctx);
    try {
      expect(fixture.toolNames()).toEqual(PTY_TOOLS.map((t) => t.name));
    } finally {
      await cleanup();
      fixture.cleanup();
    }
    expect(fixture.channel.returnCalls).toBe(1);
  });
});

describe('the V2 adapter', () => {
  it('registers the five tools in one transform, as direct tools with zod Standard Schema input', async () => {
    await withV2({}, async (host) => {
      expect(host.transformCalls).toBe(1);
      expect(host.tools.map((t) => [t.name, t.description])).toEqual(PTY_TOOLS.map((t) => [t.name, t.description]));
      for (const tool of host.tools) {
        expect(tool.options).toEqual({ codemode: false });
        expect(tool.input['~standard']).toMatchObject({ version: 1, vendor: 'zod' });
        // Strict, like the core's own parse: an unknown key is an issue, not silently dropped.
        const result = (await tool.input['~standard'].validate({ id: 'pty_12345678', surplus: true })) as {
          issues?: unknown[];
        };
        expect(result.issues?.length).toBeGreaterThan(0);
      }
    });
  });

  it('returns the JSON envelope as text content and the value as output', async () => {
    await withV2({}, async (host) => {
      const tool = host.tools.find((t) => t.name === 'pty_list')!;
      const result = await tool.execute({}, { sessionID: 'ses_x', agent: 'build', messageID: 'msg_1', id: 'call_1' });
      expect(result).toEqual({ output: { ptys: [] }, content: [{ type: 'text', text: '{"ptys":[]}' }] });
    });
  });

  it('subscribes to events once, ignores other events, and return()s the iterator at close', async () => {
    const host = await V2HostFixture.create();
    try {
      expect(host.channels).toHaveLength(1);
      await waitFor(() => host.channel.waiting, 'the plugin to wait for events');
      const s = new Session(host, 'ses_events');
      const { id } = await s.spawn({ command: 'cat', description: 'survives noise' });
      for (const event of [
        { type: 'session.text.delta', data: { sessionID: 'ses_events', delta: 'hi' } },
        { type: 'session.deleted', data: {} },
        { type: 'session.deleted', data: { sessionID: '' } },
        { type: 'session.status', properties: { sessionID: 'ses_events', status: { type: 'idle' } } },
        null,
        'session.deleted',
      ]) {
        await host.publish(event);
      }
      expect((await s.list()).map((p) => [p.id, p.status])).toEqual([[id, 'running']]);
      expect(host.channel.returnCalls).toBe(0);
    } finally {
      await host.close();
      host.cleanup();
    }
    expect(host.channel.returnCalls).toBe(1);
    expect(host.channel.waiting).toBe(false);
    // Every PTY process is gone when close resolves; the orphan guard exits on its own once its pipe is closed.
    expect(childrenOfSelf().filter((c) => c.state !== 'Z')).toEqual([]);
    await waitFor(
      () => childrenOfSelf({ withOrphanGuard: true }).every((c) => c.state === 'Z') || undefined,
      'the orphan guard to exit after close',
    );
  });

  it('reads deleted session ids from the V2 and the v1 wire shapes only', () => {
    expect(v2DeletedSessionID({ type: 'session.deleted', data: { sessionID: 'ses_1' } })).toBe('ses_1');
    expect(
      v2DeletedSessionID({ type: 'session.deleted', properties: { sessionID: 'ses_2', info: { id: 'ses_2' } } }),
    ).toBe('ses_2');
    expect(v2DeletedSessionID({ type: 'session.deleted', properties: { info: { id: 'ses_3' } } })).toBe('ses_3');
    expect(v2DeletedSessionID({ type: 'session.created', data: { sessionID: 'ses_4' } })).toBeUndefined();
    expect(v2DeletedSessionID({ type: 'session.deleted' })).toBeUndefined();
    expect(v2DeletedSessionID(undefined)).toBeUndefined();
  });

  it('uses ctx.location.directory as the project directory', async () => {
    await withV2({}, async (host) => {
      const s = new Session(host, 'ses_where');
      const { id, workdir } = await s.spawn({ command: 'pwd', description: 'where am I' });
      expect(workdir).toBe(host.projectDir);
      expect(await s.untilOutput(id, host.projectDir)).toBe(host.projectDir);
    });
  });

  it('falls back to the working directory, with a warning, when the host gives no location', async () => {
    await withV2({ location: undefined }, async (host) => {
      expect(host.logs).toContainEqual({
        level: 'warn',
        message: 'the host gave no location; using the working directory as the project directory',
        extra: { projectDir: process.cwd() },
      });
      const s = new Session(host, 'ses_cwd');
      const { workdir } = await s.spawn({ command: 'true', description: 'default workdir' });
      expect(workdir).toBe(process.cwd());
    });
  });

  it('never acts without asking: without permission.assert a spawn is refused and nothing starts', async () => {
    await withV2({ permission: {} }, async (host) => {
      const s = new Session(host, 'ses_noassert');
      const children = liveChildren();
      const failed = fails(await s.call('pty_spawn', { command: 'cat', description: 'cannot ask' }));
      expect(failed.code).toBe('permission_denied');
      expect(failed.message).toMatch(/ctx\.permission\.assert is missing.*Nothing was done/);
      expect(liveChildren()).toEqual(children);
      expect(await s.list()).toEqual([]);
    });
  });

  it('passes the host’s reason for a refusal on, and the tagged name when there is no message', async () => {
    let reason: unknown;
    await withV2({ permission: { assert: () => Promise.reject(reason) } }, async (host) => {
      const s = new Session(host, 'ses_reasons');
      const cases: Array<[unknown, string]> = [
        [
          new V2TaggedError('Permission.BlockedError', 'bash is denied by the rule "bash: deny"'),
          'bash is denied by the rule "bash: deny"',
        ],
        [new V2TaggedError('Permission.CorrectedError'), 'Permission.CorrectedError'],
        [{ _tag: 'Permission.DeclinedError' }, 'Permission.DeclinedError'],
        [Object.assign(new Error(''), { _tag: 'Permission.DeclinedError' }), 'Permission.DeclinedError'],
        ['plain string', 'plain string'],
      ];
      for (const [thrown, shown] of cases) {
        reason = thrown;
        const failed = fails(await s.call('pty_spawn', { command: 'cat', description: 'refused' }));
        expect(failed.code).toBe('permission_denied');
        expect(failed.message).toBe(
          `Start PTY: cat: not allowed (${shown}). Nothing was done. Do not retry the same action unless the user asks for it.`,
        );
      }
      expect(await s.list()).toEqual([]);
    });
  });

  it('works without an event stream (warned), ending PTYs at close', async () => {
    await withV2({ event: undefined }, async (host) => {
      expect(host.logs.map((l) => l.message)).toContain(
        'the host gives no event stream: PTYs of deleted sessions are ended only when the plugin closes',
      );
      const s = new Session(host, 'ses_noevents');
      const { pid } = await s.spawn({ command: 'cat', description: 'until close' });
      expect(pid).toEqual(expect.any(Number));
    });
  });

  it('logs the error of an event stream that rejects', async () => {
    const failing: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('stream lost')) }),
    };
    await withV2({ event: { subscribe: () => failing } }, async (host) => {
      await waitFor(() => host.logs.find((l) => l.level === 'error'), 'the stream error to be logged');
      expect(host.logs).toContainEqual({
        level: 'error',
        message: 'session event stream failed',
        extra: { error: 'Error: stream lost' },
      });
    });
  });

  it('closes the core when registering the tools fails', async () => {
    const channel = new EventChannel();
    const fixture = new V2HostFixture(makeDirs(), {
      tool: { transform: () => Promise.reject(new Error('registry closed')) },
      event: { subscribe: () => channel },
    });
    await expect(fixture.setup()).rejects.toThrow('registry closed');
    expect(channel.returnCalls).toBe(1);
    fixture.cleanup();
  });
});
