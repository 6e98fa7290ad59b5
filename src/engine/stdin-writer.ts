import type { Writable } from 'node:stream';
import { PtyError } from '../errors.js';
import { MAX_STDIN_PENDING_BYTES, STDIN_DRAIN_TIMEOUT_MS } from '../limits.js';

export interface StdinWriterOptions {
  readonly maxPendingBytes?: number;
  readonly drainTimeoutMs?: number;
}

/**
 * Writes the model's bytes to `script`'s stdin pipe with bounded backpressure. stdin is never ended:
 * `script` stops forwarding output for up to ~2 s when it sees EOF on its stdin; EOF is the byte 0x04.
 */
export class StdinWriter {
  private pending = 0;
  private failed: Error | undefined;
  private readonly maxPendingBytes: number;
  private readonly drainTimeoutMs: number;

  constructor(
    private readonly stdin: Writable,
    options: StdinWriterOptions = {},
  ) {
    this.maxPendingBytes = options.maxPendingBytes ?? MAX_STDIN_PENDING_BYTES;
    this.drainTimeoutMs = options.drainTimeoutMs ?? STDIN_DRAIN_TIMEOUT_MS;
    // EPIPE after the command exited is expected; it fails later writes instead of crashing the host.
    stdin.on('error', (err) => {
      this.failed = err;
    });
  }

  get pendingBytes(): number {
    return this.pending;
  }

  /** Resolves with the byte count once the bytes are in the pipe; rejects, writing nothing, when over the bound. */
  write(bytes: Buffer): Promise<number> {
    if (this.failed || this.stdin.destroyed || !this.stdin.writable) {
      return Promise.reject(
        new PtyError(
          'not_running',
          `the terminal no longer accepts input (${this.failed?.message ?? 'stdin closed'}).`,
        ),
      );
    }
    if (this.pending + bytes.length > this.maxPendingBytes) {
      return Promise.reject(
        new PtyError(
          'busy',
          `the program is not reading its input: ${this.pending} bytes are still waiting and ${bytes.length} more would pass the ${this.maxPendingBytes}-byte bound. Nothing was written; read its output and try again.`,
        ),
      );
    }
    this.pending += bytes.length;
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(
          new PtyError(
            'timeout',
            `the program did not take its input within ${this.drainTimeoutMs} ms; the bytes stay queued and will reach it when it reads.`,
          ),
        );
      }, this.drainTimeoutMs);
      this.stdin.write(bytes, (err) => {
        this.pending -= bytes.length;
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        if (err) reject(new PtyError('write_failed', `writing to the terminal failed: ${err.message}`));
        else resolve(bytes.length);
      });
    });
  }
}
