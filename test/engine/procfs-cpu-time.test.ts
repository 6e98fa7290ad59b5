import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpuTimeMs, statCpuTimeMs } from '../../src/engine/procfs.js';

/** This process's main thread's CPU time by the kernel's tick accounting (its task's stat), a source apart from schedstat. */
const mainThreadTicksMs = (): number =>
  statCpuTimeMs(readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8'))!;

describe('cpuTimeMs', () => {
  it("grows by the CPU time the process's main thread spends, as the kernel's tick accounting counts it", () => {
    const before = cpuTimeMs(process.pid)!;
    const ticksBefore = mainThreadTicksMs();
    const usageBefore = process.cpuUsage();
    // Spins until the main thread has had 150 ms of CPU, however long a loaded machine makes that take. (The whole
    // process's time would not do: under jest's load V8's own threads took half of it once.)
    while (mainThreadTicksMs() - ticksBefore < 150);
    const after = cpuTimeMs(process.pid)!;
    const ticks = mainThreadTicksMs() - ticksBefore;
    const usage = process.cpuUsage(usageBefore);
    // Ticks are 10 ms and charged to whoever runs when one falls: a few of them either way.
    expect(after - before).toBeGreaterThanOrEqual(ticks - 30);
    expect(after - before).toBeLessThanOrEqual(ticks + 30);
    // getrusage counts every thread of the process: never less than its main thread.
    expect(after - before).toBeLessThanOrEqual((usage.user + usage.system) / 1000 + 20);
  });

  it('is undefined for a process that is gone', () => {
    const gone = spawnSync('/bin/true').pid;
    expect(cpuTimeMs(gone)).toBeUndefined();
  });
});
