import { GrowableMemory } from './growable-memory.js';

/**
 * At least `bytes` bytes, in a WebAssembly memory where there is one: V8 maps those with MADV_DONTFORK. Node's spawn
 * forks the host, after which every ordinary page it writes faults again (copy-on-write), and the host spawns often
 * (every PTY, every search's grep): on the bench machine that was 4 ms per megabyte at each search. A memory left out
 * of forks keeps its pages. (Bun spawns without forking; there it is ordinary memory.) Exactly `bytes` long, taken at
 * once: a GrowableMemory whose first size is its last.
 */
export function memoryOutsideForks(bytes: number): Buffer {
  return new GrowableMemory(bytes, bytes).atLeast(bytes);
}
