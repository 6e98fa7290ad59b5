import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { childProcessEvents$ } from '../../src/streams/child-process-events.js';
import { IngestGate } from '../../src/streams/ingest-gate.js';
import { PAUSE_HOLDS_BACK_PIPE } from '../../src/streams/pipe-backpressure.js';
import { pauseHoldsBackPipe } from '../support/pause-probe.js';

function fakeChild(): { child: ChildProcess; stdout: PassThrough; pauses: () => number } {
  const stdout = new PassThrough();
  let pauses = 0;
  const pause = stdout.pause.bind(stdout);
  stdout.pause = () => {
    pauses++;
    return pause();
  };
  const child = Object.assign(new EventEmitter(), { stdout, stderr: null }) as unknown as ChildProcess;
  return { child, stdout, pauses: () => pauses };
}

describe('pausing a PTY’s stdout', () => {
  it('holds back the pipe in this runtime (Node), as the engine assumes here', async () => {
    expect(PAUSE_HOLDS_BACK_PIPE).toBe(true);
    await expect(pauseHoldsBackPipe()).resolves.toBe(true);
  });

  it('happens past the gate’s budget, and never without a gate (where pausing would only pile the output up)', () => {
    for (const gate of [new IngestGate(1_024, () => undefined), null]) {
      const { child, stdout, pauses } = fakeChild();
      const chunks: number[] = [];
      const subscription = childProcessEvents$(child, gate).subscribe((e) => {
        if (e.kind === 'stdout') chunks.push(e.chunk.length);
      });
      for (let i = 0; i < 4; i++) stdout.emit('data', Buffer.alloc(1_000));
      expect(chunks).toEqual([1_000, 1_000, 1_000, 1_000]);
      expect(pauses()).toBe(gate === null ? 0 : 3);
      subscription.unsubscribe();
    }
  });
});
