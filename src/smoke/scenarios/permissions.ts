import type { KillResult, ListResult, SpawnResult } from '../../protocol/tool-results.js';
import { tmpdir } from 'node:os';
import { realpathSync } from 'node:fs';
import { sleep } from '../../testkit/waits.js';
import { expectEqual, expectThat, never } from '../expect.js';
import type { AskRecord } from '../smoke-host.js';
import { ended, readUntil, statusOf, texts } from '../harness.js';
import { childrenOfSelf } from '../../testkit/processes.js';
import type { Scenario } from '../scenario.js';
import { QUIET_MS } from '../timing.js';

function lastAsk(asks: readonly AskRecord[], what: string): AskRecord {
  expectThat(asks.length, (n) => n > 0, 'a permission prompt', what);
  return asks[asks.length - 1]!;
}

function expectAsk(ask: AskRecord, permission: string, patterns: string[], what: string): void {
  expectEqual(ask.permission, permission, `${what}: permission`);
  expectEqual(ask.patterns, patterns, `${what}: patterns`);
  expectEqual(ask.always, [], `${what}: always (no "always allow" memory)`);
}

export const permissions: Scenario = {
  name: 'permissions',
  summary:
    'spawn, write and kill ask first (exact command line, exact bytes such as \\x03, always: []); a rejection does nothing',
  async run(h) {
    const { session } = await h.session('ses_smoke_perm', 'reject');
    const baseline = childrenOfSelf().length;

    // A rejected spawn starts nothing.
    const refusal = await session.attempt('pty_spawn', { command: 'cat', args: ["it's"], description: 'rejected cat' });
    expectThat(
      refusal,
      (r) => !r.ok && r.code === 'rejected',
      'the rejection to be the tool error',
      'rejected pty_spawn',
    );
    expectAsk(lastAsk(session.asks, 'rejected spawn'), 'bash', [`cat 'it'\\''s'`], 'rejected spawn prompt');
    await never(
      () => childrenOfSelf().length,
      (n) => n !== baseline,
      `${baseline} child processes (none started)`,
      'children after a rejected spawn',
      QUIET_MS,
    );
    expectEqual(await session.call<ListResult>('pty_list', {}), { ptys: [] }, 'pty_list after a rejected spawn');

    // An allowed spawn is asked before anything runs.
    session.policy = 'allow';
    const cat = await session.call<SpawnResult>('pty_spawn', { command: 'cat', description: 'allowed cat' });
    const spawnAsk = lastAsk(session.asks, 'allowed spawn');
    expectAsk(spawnAsk, 'bash', [`cat`], 'allowed spawn prompt');
    expectEqual(spawnAsk.childrenAtAsk, baseline, 'child processes while the spawn prompt was open');
    expectEqual(childrenOfSelf().length, baseline + 1, 'child processes after the allowed spawn');

    // Writes: the prompt shows the exact bytes; a rejected Ctrl-C is not delivered.
    session.policy = 'reject';
    const asksBefore = session.asks.length;
    const rejectedWrite = await session.attempt('pty_write', { id: cat.id, data: '\\x03' });
    expectThat(
      rejectedWrite,
      (r) => !r.ok && r.code === 'rejected',
      'the rejection to be the tool error',
      'rejected pty_write',
    );
    expectEqual(session.asks.length, asksBefore + 1, 'prompts for one write');
    const writeAsk = lastAsk(session.asks, 'rejected write');
    expectAsk(writeAsk, 'bash', ['pty_write \\x03'], 'Ctrl-C write prompt');
    expectEqual(writeAsk.metadata.byteCount, 1, 'Ctrl-C write prompt: byteCount');
    await sleep(QUIET_MS);
    expectEqual(await statusOf(session, cat.id), 'running', 'cat after a rejected Ctrl-C');

    session.policy = 'allow';
    await session.call('pty_write', { id: cat.id, data: 'tab\\there \\u20ac\\n' });
    expectAsk(lastAsk(session.asks, 'text write'), 'bash', ['pty_write tab\\there €\\n'], 'text write prompt');
    await readUntil(session, cat.id, (l) => texts(l).includes('tab\there €'), 'the written line echoed back by cat');

    await session.call('pty_write', { id: cat.id, data: '\\x03' });
    const interrupted = await ended(session, cat.id);
    expectEqual(
      [interrupted.status, interrupted.exitCode],
      ['exited', 130],
      'cat after an allowed Ctrl-C (status, exit code)',
    );

    // Kill: asked with the command line; a rejected kill leaves it running.
    const sleeper = await session.call<SpawnResult>('pty_spawn', {
      command: 'sleep',
      args: ['30'],
      description: 'kill target',
    });
    session.policy = 'reject';
    const rejectedKill = await session.attempt('pty_kill', { id: sleeper.id });
    expectThat(
      rejectedKill,
      (r) => !r.ok && r.code === 'rejected',
      'the rejection to be the tool error',
      'rejected pty_kill',
    );
    expectAsk(lastAsk(session.asks, 'rejected kill'), 'bash', [`pty_kill sleep 30`], 'kill prompt');
    await sleep(QUIET_MS);
    expectEqual(await statusOf(session, sleeper.id), 'running', 'sleep after a rejected kill');
    session.policy = 'allow';
    const killed = await session.call<KillResult>('pty_kill', { id: sleeper.id });
    expectEqual(killed.status, 'killed', 'status after an allowed kill');

    // A workdir outside the project asks for external_directory first, then bash.
    const outside = realpathSync(tmpdir());
    const asksBeforeExternal = session.asks.length;
    const pwd = await session.call<SpawnResult>('pty_spawn', {
      command: 'pwd',
      workdir: outside,
      description: 'outside the project',
    });
    expectEqual(
      session.asks.slice(asksBeforeExternal).map((a) => [a.permission, a.patterns]),
      [
        ['external_directory', [`${outside}/*`]],
        ['bash', [`pwd`]],
      ],
      'prompts for a spawn outside the project',
    );
    await readUntil(session, pwd.id, (l) => texts(l).includes(outside), `pwd to print ${outside}`);

    for (const ask of session.asks)
      expectEqual(ask.always, [], `always of the ${ask.permission} prompt ${ask.patterns[0]}`);
  },
};
