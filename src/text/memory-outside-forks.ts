import { RUNS_IN_BUN } from '../engine/runtime.js';

/** A WebAssembly memory's page. */
export const WASM_PAGE_BYTES = 65_536;

/** A WebAssembly memory: its pages, and `grow`, which detaches the old `buffer` (the project's type libraries do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here. */
export interface WasmMemoryApi {
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/** The WebAssembly API where memories are worth having: Node's (Bun spawns without forking, see below). */
export function wasmForMemory(): WasmMemoryApi | undefined {
  return RUNS_IN_BUN ? undefined : (globalThis as { WebAssembly?: WasmMemoryApi }).WebAssembly;
}

/**
 * At least `bytes` bytes, in a WebAssembly memory where there is one: V8 maps those with MADV_DONTFORK. Node's spawn
 * forks the host, after which every ordinary page it writes faults again (copy-on-write), and the host spawns often
 * (every PTY, every search's grep): on the bench machine that was 4 ms per megabyte at each search. A memory left out
 * of forks keeps its pages. (Bun spawns without forking; there it is ordinary memory.)
 */
export function memoryOutsideForks(bytes: number): Buffer {
  // Bun spawns without forking, so there is nothing to keep out of, and it makes a WebAssembly memory of 1.5 MB in
  // 0.6–0.7 ms (writing its pages, it seems) against a few microseconds for ordinary memory, which gets its pages as
  // they are first written.
  const wasm = wasmForMemory();
  if (wasm === undefined) return Buffer.allocUnsafeSlow(bytes);
  const pages = Math.ceil(bytes / WASM_PAGE_BYTES);
  try {
    // Exactly `bytes`: the rest of the last page is never written, so it never takes memory.
    return Buffer.from(new wasm.Memory({ initial: pages, maximum: pages }).buffer, 0, bytes);
  } catch {
    // V8 reserves gigabytes of address space per memory: under `ulimit -v 4000000` Node refuses one. Ordinary memory
    // serves.
    return Buffer.allocUnsafeSlow(bytes);
  }
}
