import { Observable } from 'rxjs';
import { exitEvent, INERT_HANDLE, type PtyEvent, startedEvent, stdoutEvent } from '../../src/streams/pty-events.js';
import { type ptyProcess$, streamShapes } from '../../src/streams/pty-process.js';
import { NO_MEMBERS } from '../../src/streams/session-report.js';
import { Utf8Chunks } from '../../src/streams/utf8-chunks.js';

/** Called as each chunk is handed on: 0-based index of the chunk. */
export type ChunkHook = (index: number) => void;

/**
 * A PTY's event stream with no process: `chunks` decoded as pty-process decodes them (Utf8Chunks), one chunk per
 * turn of the event loop, as a pipe's reads come; then the exit. What the core does with a flood, without the
 * pipe, the kernel and the other processes that share the machine.
 */
export function replayedPty(chunks: readonly Buffer[], onChunk?: ChunkHook): typeof ptyProcess$ {
  return () =>
    new Observable<PtyEvent>((subscriber) => {
      subscriber.next(startedEvent(INERT_HANDLE));
      const decoder = new Utf8Chunks();
      let next = 0;
      let stopped = false;
      const step = () => {
        if (stopped) return;
        if (next === chunks.length) {
          subscriber.next(
            exitEvent({ exitCode: 0, signal: null, inferredSignal: null, scriptStderr: '', lingering: NO_MEMBERS }),
          );
          // As the real stream does at its end (see streamShapes): else the decoder's classes died with each replay,
          // and the next one compiled the chunk's event again, a cost of the replay's that the real path does not pay.
          streamShapes.renew();
          subscriber.complete();
          return;
        }
        const chunk = chunks[next] as Buffer;
        subscriber.next(stdoutEvent(decoder, chunk));
        onChunk?.(next++);
        setImmediate(step);
      };
      setImmediate(step);
      return () => {
        stopped = true;
      };
    });
}

/**
 * The same delivery with nobody behind it: each chunk decoded in its own turn as the PTY's stream decodes it (an ASCII
 * chunk not at all, since the seventeenth session), its characters counted. What the replay itself costs, for the
 * core's share to be told from it.
 */
export function replayOnly(chunks: readonly Buffer[]): Promise<number> {
  return new Promise((resolve) => {
    const decoder = new Utf8Chunks();
    let next = 0;
    let chars = 0;
    const step = () => {
      if (next === chunks.length) return resolve(chars);
      const chunk = chunks[next++] as Buffer;
      chars += decoder.writeUnlessAscii(chunk)?.length ?? chunk.length;
      setImmediate(step);
    };
    setImmediate(step);
  });
}
