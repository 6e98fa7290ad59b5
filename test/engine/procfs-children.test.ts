import { type ChildProcess, spawn } from 'node:child_process';
import { allProcesses, childrenOf } from '../../src/engine/procfs.js';

describe('childrenOf', () => {
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started) child.kill('SIGKILL');
  });

  it('finds exactly the children a full /proc scan finds (the oracle), whatever way this kernel lists them', async () => {
    for (let i = 0; i < 5; i++) started.push(spawn('sleep', ['30'], { stdio: 'ignore' }));
    await Promise.all(started.map((c) => new Promise((resolve) => c.once('spawn', resolve))));
    const byScan = allProcesses()
      .filter((p) => p.ppid === process.pid)
      .map((p) => p.pid)
      .sort((a, b) => a - b);
    const found = childrenOf(process.pid)
      .map((p) => p.pid)
      .sort((a, b) => a - b);
    expect(found).toEqual(byScan);
    for (const child of started) expect(found).toContain(child.pid);
    // A process that is gone has none.
    expect(childrenOf(2 ** 22 + 1)).toEqual([]);
  });
});
