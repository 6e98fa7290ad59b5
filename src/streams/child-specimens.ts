import type { ChildProcess } from 'node:child_process';
import { KEPT_CHILD_SPECIMENS } from '../limits.js';
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
 * channel's `error` listener, docs/PERFORMANCE.md, thirteenth session). Its pipes are closed by then; each keeps an
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
