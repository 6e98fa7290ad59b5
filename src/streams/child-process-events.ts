import type { ChildProcess } from 'node:child_process';
import { Observable } from 'rxjs';
import type { IngestGate } from './ingest-gate.js';

export type ChildEvent =
  | { readonly kind: 'stdout'; readonly chunk: Buffer }
  | { readonly kind: 'stderr'; readonly chunk: Buffer }
  /** The process has exited; its pipes may still hold output. */
  | { readonly kind: 'exit' }
  /** The process has exited and every pipe is drained: the last event. */
  | { readonly kind: 'close'; readonly code: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly kind: 'error'; readonly error: Error };

/**
 * A child process's stdout, stderr, exit, close and error as one stream, in the order Node reports them;
 * completes after `close`. Unsubscribing removes every listener it added.
 *
 * stdout flows while the ingest gate admits its chunks (the turn's budget is not spent); past it, it is paused until
 * the gate grants a share of a later event-loop turn. Flowing freely, libuv reads a ready pipe up to 32 times in
 * a row (64 KiB each), so 16 flooding PTYs held the host's loop ~50 ms per turn (p99 170 ms). Paused, the stream
 * reads at most its highWaterMark ahead and then stops reading (the PTY holds the rest, the command blocks) until
 * the gate resumes it. Order is kept, and `close` still follows the last byte. With no gate (`null`, the default
 * where pausing does not stop the runtime reading the pipe: see pipe-backpressure.ts) stdout always flows.
 */
export function childProcessEvents$(child: ChildProcess, gate: IngestGate | null): Observable<ChildEvent> {
  return new Observable<ChildEvent>((subscriber) => {
    const { stdout, stderr } = child;
    let cancelResume: (() => void) | undefined;
    const resume = () => stdout?.resume();
    const onStdout = (chunk: Buffer) => {
      subscriber.next({ kind: 'stdout', chunk });
      if (gate === null || gate.admit(chunk.length)) return;
      stdout?.pause();
      cancelResume = gate.defer(chunk.length, resume);
    };
    const onStderr = (chunk: Buffer) => subscriber.next({ kind: 'stderr', chunk });
    const onExit = () => subscriber.next({ kind: 'exit' });
    const onError = (error: Error) => subscriber.next({ kind: 'error', error });
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
      cancelResume?.();
      subscriber.next({ kind: 'close', code, signal });
      subscriber.complete();
    };
    stdout?.on('data', onStdout);
    stderr?.on('data', onStderr);
    child.on('exit', onExit);
    child.on('error', onError);
    child.on('close', onClose);
    return () => {
      cancelResume?.();
      stdout?.off('data', onStdout);
      stderr?.off('data', onStderr);
      child.off('exit', onExit);
      child.off('close', onClose);
      // An error after we stopped listening must not become an uncaught exception.
      child.off('error', onError);
      child.on('error', () => undefined);
    };
  });
}
