import { spawnSync } from 'node:child_process';
import { cpuTimeMs } from '../../src/engine/procfs.js';

describe('cpuTimeMs', () => {
  it('grows by the CPU time this thread spends, no more than getrusage (the oracle) counts for the process', () => {
    const before = cpuTimeMs(process.pid)!;
    const ticksBefore = process.cpuUsage();
    // Spins until the process has had 150 ms of CPU, however long a loaded machine makes that take.
    const spent = () => {
      const u = process.cpuUsage(ticksBefore);
      return (u.user + u.system) / 1000;
    };
    while (spent() < 150);
    const after = cpuTimeMs(process.pid)!;
    const used = process.cpuUsage(ticksBefore);
    // The main thread did nearly all of it (other threads only the odd collection meanwhile).
    expect(after - before).toBeGreaterThanOrEqual(100);
    // getrusage counts every thread of the process; schedstat of the pid, its main thread: no more than that.
    expect(after - before).toBeLessThanOrEqual((used.user + used.system) / 1000 + 20);
  });

  it('is undefined for a process that is gone', () => {
    const gone = spawnSync('/bin/true').pid;
    expect(cpuTimeMs(gone)).toBeUndefined();
  });
});
