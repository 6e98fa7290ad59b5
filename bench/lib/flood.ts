import type { PluginHarness } from './plugin-harness.js';
import { type RawSink, rawScript, sameTerminalCommand } from './raw.js';
import { SHAPES, type Shape } from './shapes.js';

export const FLOOD_PTYS = 16;
/** 16 PTYs need 4 owners: MAX_SESSIONS_PER_OWNER is 5, MAX_SESSIONS is 16. */
const OWNERS = 4;

export interface FloodPlan {
  readonly ptys: ReadonlyArray<{ owner: string; shape: Shape; bytes: number }>;
  readonly totalBytes: number;
}

/** `total` bytes spread evenly over 16 PTYs, all of `shape`, or the shapes in turn when it is 'mixed'. */
export function floodPlan(total: number, shape: Shape | 'mixed'): FloodPlan {
  const per = Math.floor(total / FLOOD_PTYS);
  const ptys = Array.from({ length: FLOOD_PTYS }, (_, i) => ({
    owner: `bench-flood-${i % OWNERS}`,
    shape: shape === 'mixed' ? (SHAPES[i % SHAPES.length] as Shape) : shape,
    bytes: per,
  }));
  return { ptys, totalBytes: per * FLOOD_PTYS };
}

export interface FloodOutcome {
  readonly seconds: number;
  readonly ids: ReadonlyArray<{ owner: string; id: string }>;
  readonly problems: string[];
}

/**
 * All PTYs of the plan spawned at once through the tools; resolves when every one has exited. `onStarted` runs
 * once every pty_spawn has returned (the flood is then in full swing).
 */
export async function pluginFlood(
  harness: PluginHarness,
  plan: FloodPlan,
  onStarted: (ids: FloodOutcome['ids']) => void = () => {},
): Promise<FloodOutcome> {
  const t0 = performance.now();
  const problems: string[] = [];
  const spawned = await Promise.all(
    plan.ptys.map(async ({ owner, shape, bytes }) => ({
      owner,
      shape,
      bytes,
      id: (await harness.spawnShell(owner, shape.script(bytes))).id,
    })),
  );
  onStarted(spawned.map(({ owner, id }) => ({ owner, id })));
  const ids = await Promise.all(
    spawned.map(async ({ owner, shape, bytes, id }) => {
      const exit = await harness.waitExit(id);
      if (exit.exitCode !== 0 || exit.outputLines !== shape.lines(bytes)) {
        problems.push(`${id}: exit ${exit.exitCode}, ${exit.outputLines} lines (expected ${shape.lines(bytes)})`);
      }
      return { owner, id };
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, ids, problems };
}

/**
 * The same commands under raw script: to /dev/null (the machine as loaded, with nothing ingested by the host), or
 * read by the host, which only counts bytes (`count`: the floor any host pays for reading the floods).
 */
export async function rawFlood(
  plan: FloodPlan,
  onStarted: () => void = () => {},
  sink: RawSink = 'devnull',
): Promise<FloodOutcome> {
  const t0 = performance.now();
  const problems: string[] = [];
  const runs = plan.ptys.map(({ shape, bytes }) => rawScript(sameTerminalCommand(shape.script(bytes)), sink));
  onStarted();
  await Promise.all(
    runs.map(async (run) => {
      const result = await run.done;
      if (result.code !== 0) problems.push(`raw: exit ${result.code}`);
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, ids: [], problems };
}

export async function removeAll(harness: PluginHarness, ids: FloodOutcome['ids']): Promise<void> {
  await Promise.all(ids.map(({ owner, id }) => harness.kill(owner, id)));
}
