/** A WebAssembly memory's page. */
const WASM_PAGE_BYTES = 65_536;

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmMemoryApi {
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
}

/**
 * At least `bytes` bytes, in a WebAssembly memory where there is one: V8 maps those with MADV_DONTFORK. Node's spawn
 * forks the host, after which every ordinary page it writes faults again (copy-on-write), and the host spawns often
 * (every PTY, every search's grep): on the bench machine that was 4 ms per megabyte at each search. A memory left out
 * of forks keeps its pages. (Bun spawns without forking; there it is just memory.)
 */
export function memoryOutsideForks(bytes: number): Buffer {
  const wasm = (globalThis as { WebAssembly?: WasmMemoryApi }).WebAssembly;
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
