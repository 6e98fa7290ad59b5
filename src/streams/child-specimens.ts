import type { ChildProcess } from 'node:child_process';
import { KEPT_CHILD_SPECIMENS, KEPT_PIPE_HANDLE_SPECIMENS } from '../limits.js';
import { Specimens } from '../shapes/specimens.js';

/**
 * The last PTY's `script` child, kept once its stream is done (exited, every pipe closed): Node's ChildProcess,
 * its sockets and their stream states are classes that the output path's optimized code checks, and no other child
 * of the host need be alive between two PTYs (see Specimens). It holds no descriptor and none of the PTY's output
 * (withoutListeners).
 */
export const childSpecimens = new Specimens<ChildProcess>(KEPT_CHILD_SPECIMENS);

const ignoreError = (): void => undefined;

/**
 * The child as a specimen may keep: every listener on it and on its pipes closes over the stream that made it, and
 * so over the PTY's subscriber and buffer (a heap snapshot found a removed PTY's megabyte kept through the argv
 * channel's `error` listener, docs/perf-journal.md, thirteenth session). Its pipes are closed by then; each keeps an
 * `error` listener that holds nothing, so a late error could never be unhandled.
 */
function withoutListeners(child: ChildProcess): ChildProcess {
  child.removeAllListeners();
  for (const stream of child.stdio) {
    if (stream === null || stream === undefined) continue;
    stream.removeAllListeners();
    stream.on('error', ignoreError);
  }
  return child;
}

/** Keeps a finished PTY's `script` child as the specimen, with nothing of the PTY left on it. */
export function keepAsSpecimen(child: ChildProcess): void {
  childSpecimens.keep(withoutListeners(child));
}

/**
 * The JavaScript objects of the last PTY's pipe handles (Node's `Pipe`, a socket's `_handle`). A socket lets go of
 * its handle at close, so the kept child's sockets hold none, and with no PTY running none is alive: after a full
 * collection V8 freed their hidden classes and threw away the optimized code of Node's read path (`onStreamRead`,
 * `Readable.read`) and of ours that it inlines, which each new PTY's flood then compiled again (docs/perf-journal.md,
 * twenty-fourth session). A closed handle's object holds no descriptor. Where a stream has no `_handle` (Bun), nothing
 * is kept.
 */
export const pipeHandleSpecimens = new Specimens<object>(KEPT_PIPE_HANDLE_SPECIMENS);

/**
 * Keeps the handles of a just-spawned child's pipes, and of the socket its output is read from when that is not one of
 * them (output-channel.ts): the only time they can be had (see pipeHandleSpecimens).
 */
export function keepPipeHandles(child: ChildProcess, outputSocket?: object): void {
  for (const stream of [...child.stdio, outputSocket]) {
    const handle = (stream as { _handle?: unknown } | null | undefined)?._handle;
    if (typeof handle === 'object' && handle !== null) pipeHandleSpecimens.keep(handle);
  }
}
