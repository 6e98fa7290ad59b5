import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** OpenCode's own binary is Bun; BUN_BE_BUN=1 makes it run a script (the runtime OpenCode 1.18 runs plugins in). */
const OPENCODE_BUN = join(__dirname, '..', '..', 'node_modules', '.bin', 'opencode');

/** Runs a fixture (test/fixtures/NAME) in OpenCode's Bun and returns the JSON line it prints. */
async function inBun(fixture: string, args: readonly string[], timeoutMs: number): Promise<unknown> {
  const { stdout } = await run(OPENCODE_BUN, [join(__dirname, '..', 'fixtures', fixture), ...args], {
    env: { ...process.env, BUN_BE_BUN: '1' },
    timeout: timeoutMs,
  });
  return JSON.parse(stdout);
}

describe('the engine in OpenCode’s own Bun', () => {
  it('16 PTYs at a time, 6 times over, each end with every byte of their output', async () => {
    // With the argv on a fourth stdio pipe, Bun 1.3.14 left about 1 PTY in 100 running for ever (its end never
    // reported) and cut the output of others; the argv now travels in the environment there.
    expect(await inBun('bun-concurrent-ptys.ts', ['16', '6', '2000000'], 120_000)).toEqual({
      ended: 96,
      complete: 96,
      errors: [],
      stuck: 0,
    });
  }, 150_000);

  it('16 PTYs at a time, 3 times over, on Bun’s pipe (the bash wrapper, which cannot make a socket blocking)', async () => {
    expect(await inBun('bun-concurrent-ptys.ts', ['16', '3', '2000000', '', 'bash'], 120_000)).toEqual({
      ended: 48,
      complete: 48,
      errors: [],
      stuck: 0,
    });
  }, 150_000);

  it('reads script’s stdout from an output socket the wrapper made blocking, which the program does not hold', async () => {
    // Bun hands the socket over non-blocking; script sleeps 250 ms whenever it finds one full (script-invocation.ts).
    expect(await inBun('bun-output-socket.ts', [], 30_000)).toEqual({
      stdout: 'socket',
      nonBlocking: false,
      programFds: '0 1 2',
      exitCode: 0,
    });
  }, 60_000);

  it('a spawn starts on the spare output socket, and the plugin’s close releases the one kept', async () => {
    // Bun keeps its loop alive for an accepted socket whatever is done to it (docs/HOSTS.md): only close lets it go.
    expect(await inBun('bun-spare-socket.ts', [], 30_000)).toEqual({ tookSpare: true, leftOpen: [] });
  }, 60_000);

  it('pausing a child’s stdout does not hold back its pipe in Bun, as the engine assumes there', async () => {
    // If a Bun release fixes this, the probe says so here, and the ingest gate can pause PTYs under Bun again.
    expect(await inBun('bun-pause-probe.ts', [], 30_000)).toEqual({ assumed: false, measured: false });
  }, 60_000);

  it('starts the chain without the descriptor-closing step: the bound directory closes at exec, /dev/urandom is harmless', async () => {
    // Bun's openSync adds no O_CLOEXEC, and OpenCode's Bun holds two descriptors on /dev/urandom without it: each made
    // every spawn there take one process more (inheritable-fds.ts).
    expect(await inBun('bun-held-descriptors.ts', [], 30_000)).toEqual({ boundCloseOnExec: true, held: false });
  }, 60_000);

  it('a flood into a busy host costs the host no pile of output: 16 PTYs of 64 MiB, RSS peak growth under 160 MiB', async () => {
    // Bun keeps reading a paused pipe into memory JavaScript cannot see (pipe-backpressure.ts): with the ingest gate
    // pausing PTYs on Bun's pipe, this run peaked at +310 MiB; flowing freely, at +55. On the output socket, which the
    // gate pauses in Bun too, +17, and every byte arrives (Bun drops what a paused socket holds once its peer closes:
    // the host holds script's end until the exit). The bound fails well below what pausing a pipe costs.
    const result = (await inBun('bun-flood-memory.ts', ['16', String(64 * 1_048_576)], 120_000)) as {
      complete: number;
      errors: string[];
      peakRssGrowthMiB: number;
    };
    expect(result).toMatchObject({ complete: 16, errors: [] });
    expect(result.peakRssGrowthMiB).toBeLessThan(160);
  }, 150_000);
});
