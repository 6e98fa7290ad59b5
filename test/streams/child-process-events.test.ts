import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { type ChildEvent, childEventShapes, childProcessEvents$ } from '../../src/streams/child-process-events.js';
import { natives } from '../support/v8-natives.js';
import { IngestGate } from '../../src/streams/ingest-gate.js';
import type { OutputChannel, OutputListener } from '../../src/streams/output-channel.js';

function fakeChild() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const child = Object.assign(new EventEmitter(), { stdout, stderr }) as unknown as ChildProcess;
  return { child, stdout, stderr };
}

/** What the relay uses of an OutputChannel, recorded. */
class FakeChannel {
  listener: OutputListener | undefined;
  paused = false;
  listen(listener: OutputListener): void {
    this.listener = listener;
  }
  stopListening(): void {
    this.listener = undefined;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  exited = false;
  scriptExited(): void {
    this.exited = true;
  }
  get asChannel(): OutputChannel {
    return this as unknown as OutputChannel;
  }
}

const described = (e: ChildEvent): string =>
  e.kind === 'stdout' || e.kind === 'stderr'
    ? `${e.kind} ${e.chunk.toString()}`
    : e.kind === 'close'
      ? `close ${e.code} ${e.signal}`
      : e.kind === 'error'
        ? `error ${e.error.message}`
        : e.kind;

describe('childProcessEvents$', () => {
  it('relays stdout, stderr, exit, error and close in the order Node reports them, and completes after close', () => {
    const { child, stdout, stderr } = fakeChild();
    const seen: string[] = [];
    let completed = false;
    childProcessEvents$(child, null).subscribe({
      next: (e) => seen.push(described(e)),
      complete: () => (completed = true),
    });
    stdout.emit('data', Buffer.from('out 1'));
    stderr.emit('data', Buffer.from('err'));
    child.emit('exit', 0, null);
    stdout.emit('data', Buffer.from('out 2'));
    child.emit('error', new Error('EPIPE'));
    child.emit('close', 3, null);
    expect(seen).toEqual(['stdout out 1', 'stderr err', 'exit', 'stdout out 2', 'error EPIPE', 'close 3 null']);
    expect(completed).toBe(true);
  });

  it('removes every listener it added when unsubscribed, and an error after that throws nothing', () => {
    const { child, stdout, stderr } = fakeChild();
    const seen: string[] = [];
    const subscription = childProcessEvents$(child, null).subscribe((e) => seen.push(described(e)));
    expect([stdout.listenerCount('data'), stderr.listenerCount('data'), child.listenerCount('close')]).toEqual([
      1, 1, 1,
    ]);
    subscription.unsubscribe();
    expect(stdout.listenerCount('data')).toBe(0);
    expect(stderr.listenerCount('data')).toBe(0);
    expect(child.listenerCount('exit')).toBe(0);
    expect(child.listenerCount('close')).toBe(0);
    stdout.emit('data', Buffer.from('late'));
    expect(() => child.emit('error', new Error('after the end'))).not.toThrow();
    expect(seen).toEqual([]);
  });

  it('a chunk past the gate pauses stdout until the gate resumes it; unsubscribing cancels a pending resume', () => {
    for (const unsubscribeFirst of [false, true]) {
      const turns: Array<() => void> = [];
      const gate = new IngestGate(1_000, (turn) => void turns.push(turn));
      const { child, stdout } = fakeChild();
      const subscription = childProcessEvents$(child, gate).subscribe();
      stdout.resume();
      stdout.emit('data', Buffer.alloc(600));
      expect(stdout.isPaused()).toBe(false);
      stdout.emit('data', Buffer.alloc(600));
      expect(stdout.isPaused()).toBe(true);
      if (unsubscribeFirst) subscription.unsubscribe();
      for (const turn of turns.splice(0)) turn();
      expect(stdout.isPaused()).toBe(unsubscribeFirst);
      subscription.unsubscribe();
    }
  });
});

describe('childProcessEvents$ with an output channel', () => {
  it("takes stdout from the channel, and holds the child's close until the channel's end", () => {
    const { child, stdout, stderr } = fakeChild();
    const channel = new FakeChannel();
    const seen: string[] = [];
    let completed = false;
    childProcessEvents$(child, null, channel.asChannel).subscribe({
      next: (e) => seen.push(described(e)),
      complete: () => (completed = true),
    });
    expect(stdout.listenerCount('data')).toBe(0);
    channel.listener?.chunk(Buffer.from('out 1'));
    stderr.emit('data', Buffer.from('err'));
    child.emit('exit', 0, null);
    child.emit('close', 0, null);
    // Output written before script closed may still be on its way through the socket.
    channel.listener?.chunk(Buffer.from('out 2'));
    expect(completed).toBe(false);
    channel.listener?.end();
    expect(seen).toEqual(['stdout out 1', 'stderr err', 'exit', 'stdout out 2', 'close 0 null']);
    expect(completed).toBe(true);
  });

  it("closes at the child's close when the channel ended first", () => {
    const { child } = fakeChild();
    const channel = new FakeChannel();
    const seen: string[] = [];
    childProcessEvents$(child, null, channel.asChannel).subscribe((e) => seen.push(described(e)));
    channel.listener?.chunk(Buffer.from('last'));
    channel.listener?.end();
    expect(seen).toEqual(['stdout last']);
    child.emit('close', null, 'SIGKILL');
    expect(seen).toEqual(['stdout last', 'close null SIGKILL']);
  });

  it('pauses and resumes the channel for the gate, and stops listening to it when unsubscribed', () => {
    const turns: Array<() => void> = [];
    const gate = new IngestGate(1_000, (turn) => void turns.push(turn));
    const { child } = fakeChild();
    const channel = new FakeChannel();
    const subscription = childProcessEvents$(child, gate, channel.asChannel).subscribe();
    channel.listener?.chunk(Buffer.alloc(600));
    expect(channel.paused).toBe(false);
    channel.listener?.chunk(Buffer.alloc(600));
    expect(channel.paused).toBe(true);
    for (const turn of turns.splice(0)) turn();
    expect(channel.paused).toBe(false);
    subscription.unsubscribe();
    expect(channel.listener).toBeUndefined();
  });

  it('at script’s exit resumes a paused channel, cancels its pending resume, pauses it no more, and says so', () => {
    // Bun drops what a paused socket holds once its peer closes: the rest must be read unpaused (docs/HOSTS.md).
    const turns: Array<() => void> = [];
    const gate = new IngestGate(1_000, (turn) => void turns.push(turn));
    const { child } = fakeChild();
    const channel = new FakeChannel();
    const seen: string[] = [];
    childProcessEvents$(child, gate, channel.asChannel).subscribe((e) => seen.push(described(e)));
    channel.listener?.chunk(Buffer.alloc(600));
    channel.listener?.chunk(Buffer.alloc(900));
    expect([channel.paused, gate.queued, channel.exited]).toEqual([true, 1, false]);
    child.emit('exit', 0, null);
    expect([channel.paused, gate.queued, channel.exited]).toEqual([false, 0, true]);
    channel.listener?.chunk(Buffer.alloc(5_000));
    expect([channel.paused, gate.queued]).toEqual([false, 0]);
    for (const turn of turns.splice(0)) turn();
    expect(channel.paused).toBe(false);
    expect(seen.map((e) => `${e.split(' ')[0]} ${e.length}`)).toEqual([
      'stdout 607',
      'stdout 907',
      'exit 4',
      'stdout 5007',
    ]);
  });
});

describe('childEventShapes', () => {
  it('keeps one event of each kind with the classes the relay’s own events have, made anew as a child closes', () => {
    const { child, stdout, stderr } = fakeChild();
    const seen: ChildEvent[] = [];
    childProcessEvents$(child, null).subscribe((e) => seen.push(e));
    stdout.emit('data', Buffer.from('out'));
    stderr.emit('data', Buffer.from('err'));
    child.emit('error', new Error('EPIPE'));
    const before = childEventShapes.instance;
    child.emit('close', 3, null);
    const killed = fakeChild().child;
    childProcessEvents$(killed, null).subscribe((e) => seen.push(e));
    killed.emit('close', null, 'SIGTERM');
    const kept = childEventShapes.instance ?? [];
    expect(kept).not.toBe(before);
    expect(seen.map(described)).toEqual([
      'stdout out',
      'stderr err',
      'error EPIPE',
      'close 3 null',
      'close null SIGTERM',
    ]);
    const [out, err, error, exited, signalled] = seen;
    const [keptOut, keptErr, keptError, keptExited, keptSignalled] = kept;
    expect([keptOut?.kind, keptErr?.kind, keptError?.kind, keptExited?.kind, keptSignalled?.kind]).toEqual([
      'stdout',
      'stderr',
      'error',
      'close',
      'close',
    ]);
    expect(natives.sameMap(keptOut, out)).toBe(true);
    expect(natives.sameMap(keptErr, err)).toBe(true);
    expect(natives.sameMap(keptError, error)).toBe(true);
    expect(natives.sameMap(keptExited, exited)).toBe(true);
    expect(natives.sameMap(keptSignalled, signalled)).toBe(true);
  });
});
