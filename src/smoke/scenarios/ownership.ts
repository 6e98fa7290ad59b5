import type { ListResult, SpawnResult } from '../../protocol/tool-results.js';
import { sleep } from '../../testkit/waits.js';
import { expectEqual } from '../expect.js';
import { readUntil, statusOf, texts } from '../harness.js';
import type { Scenario } from '../scenario.js';
import { QUIET_MS } from '../timing.js';

export const ownership: Scenario = {
  name: 'ownership',
  summary: 'another session gets not_found on read/write/kill of a PTY it does not own and sees nothing in pty_list',
  async run(h) {
    const host = await h.host();
    const owner = host.session('ses_smoke_owner');
    const other = host.session('ses_smoke_other');
    const cat = await owner.call<SpawnResult>('pty_spawn', { command: 'cat', description: 'owned cat' });
    await owner.call('pty_write', { id: cat.id, data: 'mine\\n' });
    await readUntil(owner, cat.id, (l) => texts(l).includes('mine'), 'the owner to read its own output');

    await other.refused('pty_read', { id: cat.id }, 'not_found');
    await other.refused('pty_read', { id: cat.id, pattern: 'mine' }, 'not_found');
    await other.refused('pty_write', { id: cat.id, data: 'theirs\\n' }, 'not_found');
    await other.refused('pty_kill', { id: cat.id }, 'not_found');
    await other.refused('pty_kill', { id: cat.id, cleanup: true }, 'not_found');
    expectEqual(other.asks.length, 0, 'permission prompts shown to the other session (it must not reach the prompt)');
    expectEqual(await other.call<ListResult>('pty_list', {}), { ptys: [] }, "the other session's pty_list");

    // Deleting the other session leaves the owner's PTY alone.
    await host.deleteSession(other.id);
    await sleep(QUIET_MS);
    expectEqual(await statusOf(owner, cat.id), 'running', "the owner's PTY after another session was deleted");
    const lines = await readUntil(owner, cat.id, () => true, 'a read');
    expectEqual(texts(lines.lines ?? []), ['mine'], "the owner's output (nothing the other session typed)");
    const list = await owner.call<ListResult>('pty_list', {});
    expectEqual(
      list.ptys.map((p) => p.id),
      [cat.id],
      "the owner's pty_list",
    );
  },
};
