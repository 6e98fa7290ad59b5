import { bindDirectory, type BoundDirectory } from '../../src/engine/bound-directory.js';
import { childrenOfSelf } from '../../src/testkit/processes.js';
import { PtyProbe } from '../support/pty-probe.js';

jest.setTimeout(60_000);

/** Counts the turns of the host's loop (one `setImmediate` each) until stopped. */
function turnCounter(): { readonly now: number; stop(): void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get now() {
      return turns;
    },
    stop: () => {
      running = false;
    },
  };
}

describe('PTYs asked for together, with real script processes', () => {
  it('start in turns of their own (each binds its workdir and forks in a later turn), and every one runs', async () => {
    const turns = turnCounter();
    const boundAt: number[] = [];
    const bind = (path: string): BoundDirectory => {
      boundAt.push(turns.now);
      return bindDirectory(path);
    };
    try {
      const probes = [0, 1, 2, 3].map(
        (i) => new PtyProbe({ command: 'echo', args: [`ready ${i}`] }, undefined, { bind }),
      );
      // At most the first started in the turn that asked for all four (none where each first connects its output
      // socket, which takes a turn: output-channel.ts).
      expect(boundAt.length).toBeLessThanOrEqual(1);
      await Promise.all(probes.map((probe, i) => probe.output(`ready ${i}\n`)));
      expect(boundAt).toHaveLength(4);
      for (let k = 1; k < boundAt.length; k++) expect(boundAt[k]).toBeGreaterThan(boundAt[k - 1] as number);
      await Promise.all(probes.map((probe) => probe.dispose()));
    } finally {
      turns.stop();
    }
  });

  it('one given up while it waits for its turn never binds or starts anything; the next one runs', async () => {
    let binds = 0;
    const bind = (path: string): BoundDirectory => {
      binds++;
      return bindDirectory(path);
    };
    const first = new PtyProbe({ command: 'sleep', args: ['30'] }, undefined, { bind });
    const given = new PtyProbe({ command: 'sleep', args: ['30'] }, undefined, { bind });
    const third = new PtyProbe({ command: 'echo', args: ['third'] }, undefined, { bind });
    await given.dispose();
    await third.output('third\n');
    expect(binds).toBe(2);
    expect(given.handle).toBeUndefined();
    await first.dispose();
    await third.dispose();
    expect(childrenOfSelf().filter((c) => c.state !== 'Z')).toEqual([]);
  });
});
