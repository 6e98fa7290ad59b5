import { mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { SpawnResult } from '../../src/protocol/tool-results.js';
import { HOSTS, Session, fails, ok, useHost } from './fixtures/suite.js';
import { liveChildren } from '../../src/testkit/processes.js';
import { waitFor } from '../../src/testkit/waits.js';
import type { V2PermissionAssertInput } from '../../src/hosts/opencode-v2.js';

jest.setTimeout(90_000);

describe.each(HOSTS)('permissions through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('asks for the exact command line (quoted only where needed), with nothing remembered', async () => {
    const s = new Session(ctx.host, 'ses_ask');
    const spawned = ok(
      await s.call(
        'pty_spawn',
        { command: 'echo', args: ["it's", '$HOME', 'a b'], description: 'quoting' },
        { agent: 'plan', messageID: 'msg_7' },
      ),
      SpawnResult,
    );
    const commandLine = `echo 'it'\\''s' '$HOME' 'a b'`;
    expect(ctx.host.permissionLog).toHaveLength(1);
    const [asked] = ctx.host.permissionLog;
    expect(asked).toMatchObject({
      sessionID: 'ses_ask',
      permission: 'bash',
      patterns: [commandLine],
      remember: [],
      outcome: 'allowed',
    });
    expect(asked!.metadata).toMatchObject({
      command: commandLine,
      workdir: ctx.host.projectDir,
      description: 'quoting',
      tool: 'pty_spawn',
      title: `Start PTY: ${commandLine}`,
    });
    if (ctx.host.name === 'v2') {
      // The active tool call is the source; the agent is the caller's.
      const raw = asked!.raw as V2PermissionAssertInput;
      expect(raw).toMatchObject({
        sessionID: 'ses_ask',
        action: 'bash',
        resources: [commandLine],
        save: [],
        agent: 'plan',
      });
      expect(raw.source).toEqual({ type: 'tool', messageID: 'msg_7', callID: expect.stringMatching(/^call_\d+$/) });
    } else {
      expect(asked!.raw).toMatchObject({ permission: 'bash', patterns: [commandLine], always: [] });
    }
    await s.untilStatus(spawned.id, ['exited']);
  });

  it('asks to write the exact visible bytes, and to kill the exact command line', async () => {
    const s = new Session(ctx.host, 'ses_write');
    const { id } = await s.spawn({ command: 'cat', description: 'target' });
    await s.write(id, 'ls -la\\r');
    await s.write(id, '\\x03');
    const [, line, interrupt] = ctx.host.permissionLog;
    expect(line).toMatchObject({ permission: 'bash', patterns: ['pty_write ls -la\\r'], remember: [] });
    expect(line!.metadata).toMatchObject({ id, bytes: 'ls -la\\r', byteCount: 7, command: `cat`, tool: 'pty_write' });
    expect(interrupt).toMatchObject({ permission: 'bash', patterns: ['pty_write \\x03'] });
    expect(interrupt!.metadata).toMatchObject({ bytes: '\\x03', byteCount: 1 });

    await s.kill(id);
    expect(ctx.host.permissionLog.at(-1)).toMatchObject({ permission: 'bash', patterns: [`pty_kill cat`] });
    expect(ctx.host.permissionLog.at(-1)!.metadata).toMatchObject({ id, tool: 'pty_kill', cleanup: false });
    // An ended PTY is removed without asking: there is nothing left to stop.
    const asked = ctx.host.permissionLog.length;
    await s.kill(id, true);
    expect(ctx.host.permissionLog).toHaveLength(asked);
  });

  it('asks external_directory first for a workdir outside the project, and only bash inside it', async () => {
    const s = new Session(ctx.host, 'ses_dirs');
    const outside = join(ctx.host.projectDir, '..', 'elsewhere');
    const far = await s.spawn({ command: 'pwd', workdir: outside, description: 'outside' });
    const realOutside = far.workdir as string;
    expect(realOutside).not.toContain('/project');
    expect(ctx.host.permissionLog.map((p) => [p.permission, p.patterns])).toEqual([
      ['external_directory', [`${realOutside}/*`]],
      ['bash', [`pwd`]],
    ]);
    expect(ctx.host.permissionLog[0]!.metadata).toMatchObject({ directory: realOutside, command: `pwd` });
    expect(await s.untilOutput(far.id, realOutside)).toBe(realOutside);

    const before = ctx.host.permissionLog.length;
    const near = await s.spawn({ command: 'pwd', workdir: 'sub', description: 'inside' });
    expect(near.workdir).toBe(join(ctx.host.projectDir, 'sub'));
    const absolute = await s.spawn({
      command: 'pwd',
      workdir: join(ctx.host.projectDir, 'sub'),
      description: 'inside too',
    });
    expect(absolute.workdir).toBe(join(ctx.host.projectDir, 'sub'));
    expect(ctx.host.permissionLog.slice(before).map((p) => p.permission)).toEqual(['bash', 'bash']);
  });

  it('starts nothing when the user says no, and releases the reservation', async () => {
    const s = new Session(ctx.host, 'ses_no');
    const children = liveChildren();
    ctx.host.permissions.decide = () => 'reject';
    const failed = fails(await s.call('pty_spawn', { command: 'sleep', args: ['30'], description: 'refused' }));
    if (ctx.host.name === 'v2') {
      expect(failed.code).toBe('permission_denied');
      expect(failed.message).toMatch(
        /^Start PTY: sleep 30: not allowed \(Permission\.DeclinedError\)\. Nothing was done\./,
      );
    } else {
      // V1 passes OpenCode's own rejection through, so OpenCode handles it as it does for its own tools.
      expect(failed.message).toBe('The user rejected permission to use this specific tool call.');
    }
    expect(ctx.host.permissionLog.map((p) => p.outcome)).toEqual(['rejected']);
    expect(liveChildren()).toEqual(children);
    expect(await s.list()).toEqual([]);

    // The refused spawn held no slot: all five of this session's slots are free.
    ctx.host.permissions.decide = () => 'allow';
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await s.spawn({ command: 'cat', description: `cat ${i}` })).id);
    expect((await s.list()).map((p) => p.status)).toEqual(['running', 'running', 'running', 'running', 'running']);
    expect(new Set(ids).size).toBe(5);
  });

  it('writes nothing and kills nothing when refused', async () => {
    const s = new Session(ctx.host, 'ses_no_write');
    const { id } = await s.spawn({ command: 'cat', description: 'target' });
    ctx.host.permissions.decide = () => 'reject';
    fails(await s.call('pty_write', { id, data: 'secret\\n' }));
    fails(await s.call('pty_kill', { id }));
    ctx.host.permissions.decide = () => 'allow';
    await s.write(id, 'allowed\\n');
    await s.untilOutput(id, 'allowed');
    expect(await s.text(id)).toBe('allowed');
    expect((await s.list())[0]).toMatchObject({ id, status: 'running' });
  });

  it('waits for a prompt that is answered later', async () => {
    const s = new Session(ctx.host, 'ses_wait');
    ctx.host.permissions.decide = () => 'hang';
    const spawning = s.call('pty_spawn', { command: 'cat', description: 'slow yes' });
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    expect(await s.list()).toEqual([]);
    ctx.host.permissions.release('allow');
    const spawned = ok(await spawning, SpawnResult);
    expect(spawned.status).toBe('running');
  });

  it('starts nothing in a workdir removed and made again at the same path while its prompt was open', async () => {
    const s = new Session(ctx.host, 'ses_remade');
    const dir = join(ctx.host.projectDir, 'remade');
    mkdirSync(dir);
    ctx.host.permissions.decide = () => 'hang';
    const spawning = s.call('pty_spawn', { command: 'pwd', workdir: 'remade', description: 'where' });
    await waitFor(() => ctx.host.permissions.pending.length === 1, 'the prompt');
    rmdirSync(dir);
    mkdirSync(dir);
    ctx.host.permissions.release('allow');
    const refused = fails(await spawning);
    expect(refused.message).toMatch(/is another directory than the one that was approved.*Nothing was started/);
    expect(await s.list()).toEqual([]);
  });
});
