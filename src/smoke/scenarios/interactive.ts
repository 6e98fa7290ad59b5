import type { SpawnResult } from '../../protocol/tool-results.js';
import { existsSync } from 'node:fs';
import { sleep } from '../../testkit/waits.js';
import { expectEqual } from '../expect.js';
import { ended, readUntil, texts } from '../harness.js';
import type { Scenario } from '../scenario.js';
import { QUIET_MS } from '../timing.js';

/** python3 as the PTY finds it (its PATH is /usr/local/bin:/usr/bin:/bin). */
const PYTHON_DIRS = ['/usr/local/bin', '/usr/bin', '/bin'];

export const interactive: Scenario = {
  name: 'interactive',
  summary: 'stdin and output round trips: cat (no echo, UTF-8, Ctrl-D ends it) and a python3 REPL',
  async run(h) {
    const { session } = await h.session('ses_smoke_io');
    const cat = await session.call<SpawnResult>('pty_spawn', { command: 'cat', description: 'cat round trip' });
    await session.call('pty_write', { id: cat.id, data: 'héllo wörld €\\n' });
    await readUntil(session, cat.id, (l) => l.length > 0, 'cat to answer');
    await sleep(QUIET_MS);
    const read = await readUntil(session, cat.id, () => true, 'a read');
    expectEqual(read.lines, [{ line: 1, text: 'héllo wörld €' }], 'cat output (the line once: no terminal echo)');
    await session.call('pty_write', { id: cat.id, data: '\\x04' });
    const catEnd = await ended(session, cat.id);
    expectEqual([catEnd.status, catEnd.exitCode], ['exited', 0], 'cat after Ctrl-D (status, exit code)');

    if (!PYTHON_DIRS.some((d) => existsSync(`${d}/python3`))) return;
    const py = await session.call<SpawnResult>('pty_spawn', {
      command: 'python3',
      args: ['-q'],
      description: 'python REPL',
    });
    await readUntil(session, py.id, (l) => l.at(-1)?.text === '>>> ', 'the REPL prompt ">>> "');
    await session.call('pty_write', { id: py.id, data: 'print(6 * 7, "\\u00e9")\\n' });
    // Input is not echoed, so the answer follows the prompt on its line.
    await readUntil(session, py.id, (l) => texts(l).includes('>>> 42 é'), 'the line ">>> 42 é"');
    await session.call('pty_write', { id: py.id, data: 'exit()\\n' });
    const pyEnd = await ended(session, py.id);
    expectEqual([pyEnd.status, pyEnd.exitCode], ['exited', 0], 'python3 after exit() (status, exit code)');
  },
};
