import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fixedEnvironment } from '../../src/engine/environment.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../../src/limits.js';
import { firstValueFrom } from 'rxjs';
import { CHILD_SOCKETS_STAY_NONBLOCKING, outputChannel$ } from '../../src/streams/output-channel.js';
import { unblockDescriptor } from '../../src/engine/perl-wrapper.js';
import { PERL_PATH } from '../../src/engine/system-paths.js';
import type { Socket } from 'node:net';

/**
 * The `-c` string for raw `script` running `bash -c SCRIPT` exactly as the plugin's PTY runs it: the same
 * terminal size and `-onlcr` (the plugin turns onlcr off; with it on, short lines would measure the kernel's
 * \n→\r\n rewrite, ~6 MB/s, not `script`'s copy loop), then `exec`.
 */
export function sameTerminalCommand(script: string): string {
  return `stty rows ${DEFAULT_ROWS} cols ${DEFAULT_COLS} -onlcr; exec bash -c ${shellQuote(script)}`;
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export type RawSink = 'devnull' | 'count';

export interface RawRun {
  readonly child: ChildProcess;
  /** Resolves at `close` with the bytes counted (0 for /dev/null) and the exit code. */
  readonly done: Promise<RawResult>;
}

type RawResult = { bytes: number; code: number | null; firstDataAt: number | null };

/**
 * `script -q -e -E never -c CMD /dev/null` spawned from Node, stdout as given; stdin a pipe kept open. A socket is
 * passed again on fd 3 where the runtime leaves it non-blocking, for CMD to make it blocking (see unblockTwinFirst).
 */
function spawnScript(command: string, stdout: 'pipe' | number | Socket): ChildProcess {
  const twin = typeof stdout === 'object' && CHILD_SOCKETS_STAY_NONBLOCKING;
  return spawn('/usr/bin/script', ['-q', '-e', '-E', 'never', '-c', command, '/dev/null'], {
    stdio: ['pipe', stdout, 'pipe', ...(twin ? [stdout] : [])],
    env: fixedEnvironment(),
    detached: true,
  });
}

/** The bytes a reader counts, and when the first came. */
class ByteCount {
  bytes = 0;
  firstDataAt: number | null = null;

  readonly add = (chunk: Uint8Array): void => {
    if (this.firstDataAt === null) this.firstDataAt = performance.now();
    this.bytes += chunk.length;
  };

  result(code: number | null): RawResult {
    return { bytes: this.bytes, code, firstDataAt: this.firstDataAt };
  }
}

/** The child's exit code at its `close`. */
function closed(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
}

/**
 * Raw `script` (spawnScript). stdin is a pipe kept open (as in the plugin: ending it makes script wait for the
 * child). `devnull`: script's output goes straight to /dev/null (the ceiling of the design); `count`: Node reads it
 * and only counts bytes (the floor of any Node host).
 */
export function rawScript(command: string, sink: RawSink): RawRun {
  const out = sink === 'devnull' ? openSync('/dev/null', 'w') : 'pipe';
  const child = spawnScript(command, out);
  if (typeof out === 'number') closeSync(out);
  const count = new ByteCount();
  child.stdout?.on('data', count.add);
  child.stderr?.resume();
  return { child, done: closed(child).then((code) => count.result(code)) };
}

/**
 * As the plugin's Perl wrapper does it (ChainOptions.stdoutTwin): clears O_NONBLOCK on script's stdout through its
 * twin on fd 3, then closes fd 3; one perl process more, in the PTY, before the command.
 */
const unblockTwinFirst = `${PERL_PATH} -e ${shellQuote(unblockDescriptor(3).join(' '))}; exec 3>&-;`;

/**
 * `rawScript(command, 'count')` with script's stdout an output socket read by `onread`, as the plugin reads it
 * (src/streams/output-channel.ts): the floor for a host that reads that way.
 */
export async function rawScriptViaSocket(command: string): Promise<RawRun> {
  const channel = await firstValueFrom(outputChannel$());
  const stdout = channel.childEnd;
  if (stdout === undefined) throw new Error('the output socket has no child end');
  let child: ChildProcess;
  try {
    child = spawnScript(CHILD_SOCKETS_STAY_NONBLOCKING ? `${unblockTwinFirst} ${command}` : command, stdout);
  } finally {
    channel.closeChildEnd();
  }
  const count = new ByteCount();
  const ended = new Promise<void>((resolve) => channel.listen({ chunk: count.add, end: resolve }));
  child.stderr?.resume();
  const done = Promise.all([closed(child), ended]).then(([code]) => {
    channel.release();
    return count.result(code);
  });
  return { child, done };
}
