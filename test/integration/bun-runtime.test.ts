import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** OpenCode's own binary is Bun; BUN_BE_BUN=1 makes it run a script (the runtime OpenCode 1.18 runs plugins in). */
const OPENCODE_BUN = join(__dirname, '..', '..', 'node_modules', '.bin', 'opencode');

describe('the engine in OpenCode’s own Bun', () => {
  it('16 PTYs at a time, 6 times over, each end with every byte of their output', async () => {
    // With the argv on a fourth stdio pipe, Bun 1.3.14 left about 1 PTY in 100 running for ever (its end never
    // reported) and cut the output of others; the argv now travels in the environment there.
    const { stdout } = await run(
      OPENCODE_BUN,
      [join(__dirname, '..', 'fixtures', 'bun-concurrent-ptys.ts'), '16', '6', '2000000'],
      { env: { ...process.env, BUN_BE_BUN: '1' }, timeout: 120_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ ended: 96, complete: 96, errors: [], stuck: 0 });
  }, 150_000);
});
