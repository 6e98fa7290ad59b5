import { spawnSync } from 'node:child_process';
import { cpuTimeMs } from '../../src/engine/procfs.js';

describe('cpuTimeMs', () => {
  it('grows by the CPU time this thread spends, no more than getrusage (the oracle) counts for the process', () => {
    const before = cpuTimeMs(process.pid)!;
    const ticksBefore = process.cpuUsage();
    const until = performance.now() + 120;
    while (performance.now() < until);
    const after = cpuTimeMs(process.pid)!;
    const used = process.cpuUsage(ticksBefore);
    expect(after - before).toBeGreaterThanOrEqual(100);
    // getrusage counts every thread of the process; schedstat of the pid, its main thread: no more than that.
    expect(after - before).toBeLessThanOrEqual((used.user + used.system) / 1000 + 20);
  });

  it('is undefined for a process that is gone', () => {
    const gone = spawnSync('/bin/true').pid;
    expect(cpuTimeMs(gone)).toBeUndefined();
  });
});
