import { RUNS_IN_BUN } from '../engine/runtime.js';

/**
 * Whether pausing a child's stdout stops the runtime reading its pipe, so that the program blocks once the pipe is
 * full. Node: yes, a paused stream reads at most its highWaterMark (64 KiB) ahead. Bun 1.3 (OpenCode 1.18's
 * runtime): no. It goes on reading into memory that JavaScript can neither see nor bound (`readableLength` stays
 * at 220 KiB): a paused `cat /dev/zero` grew the host's RSS by 1.3 GB in 3 s, and resuming delivers it all.
 * Reading with `read()` on 'readable', or `Bun.spawn`'s ReadableStream left unread, does the same. Under Bun the
 * ingest gate must therefore never pause a PTY on a pipe: each pause turned into a pile of the program's output, and
 * 16 flooding PTYs took the host's RSS up by 410–620 MiB at the peak. Flowing freely, the host's own busy loop is
 * what holds a flood back: the runtime reads a pipe only when its loop gets to it. A paused output socket is held
 * back in both runtimes (ingest-gate.ts's gateFor).
 */
export const PAUSE_HOLDS_BACK_PIPE = !RUNS_IN_BUN;
