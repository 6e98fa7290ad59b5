import { RUNS_IN_BUN } from '../engine/runtime.js';

/** A WebAssembly memory's page. */
const WASM_PAGE_BYTES = 65_536;

/** A WebAssembly memory: its pages, and `grow`, which detaches the old `buffer` (the project's type libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here. */
interface WasmMemoryApi {
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/**
 * The WebAssembly API where its memories are worth having: Node's. Bun spawns without forking, so there is nothing to
 * keep out of, and it makes a WebAssembly memory of 1.5 MB in 0.6–0.7 ms (writing its pages, it seems) against a few
 * microseconds for ordinary memory, which gets its pages as they are first written.
 */
function wasmForMemory(): WasmMemoryApi | undefined {
  return RUNS_IN_BUN ? undefined : (globalThis as { WebAssembly?: WasmMemoryApi }).WebAssembly;
}

const NO_MEMORY = Buffer.alloc(0);

/**
 * Memory that is taken as it is needed, up to `maxBytes`, keeping what was written: a WebAssembly memory in Node
 * (V8 maps those with MADV_DONTFORK, so Node's forks leave their pages alone; grown in place), ordinary memory,
 * copied as it doubles, elsewhere. The rest of the last page past `maxBytes` is never in a view, so never written.
 *
 * Why not all of it at once: a runtime counts every byte it hands out for an ArrayBuffer toward its collector's next
 * full collection, written or not. A PTY's ring was 1.6 MB taken at its start (and another for the spare buffer made
 * when a PTY goes), so every spawn brought V8's next mark-compact 3.2 MB closer: one every 10–20 spawns, each
 * 10–30 ms of the host's CPU on this VM, where the pages it marks fault again after every fork (docs/perf-journal.md,
 * twenty-first session). A PTY that prints little now takes one page.
 */
export class GrowableMemory {
  private wasm: WasmMemory | undefined;
  private view: Buffer = NO_MEMORY;

  constructor(
    readonly maxBytes: number,
    private readonly firstBytes: number,
  ) {}

  /** What is there now: valid until the next `atLeast` that grows it. */
  get bytes(): Buffer {
    return this.view;
  }

  /**
   * The memory, at least `need` bytes long (`need` ≤ maxBytes): grown to `need`, twice its size or `firstBytes`,
   * whichever is largest, at most `maxBytes`. Views of the memory before a growth are no longer valid after it.
   */
  atLeast(need: number): Buffer {
    if (need <= this.view.length) return this.view;
    if (need > this.maxBytes) throw new RangeError(`${need} bytes asked of a memory of at most ${this.maxBytes}`);
    const size = Math.min(this.maxBytes, Math.max(need, 2 * this.view.length, this.firstBytes));
    this.view = this.grownInPlace(size) ?? this.copiedTo(size);
    return this.view;
  }

  /** The WebAssembly memory grown to `size` (made, the first time), or undefined where there is none to grow. */
  private grownInPlace(size: number): Buffer | undefined {
    const pages = Math.ceil(size / WASM_PAGE_BYTES);
    try {
      if (this.wasm === undefined) {
        // Only at the start: memory that went the ordinary way once stays ordinary.
        const api = this.view.length === 0 ? wasmForMemory() : undefined;
        if (api === undefined) return undefined;
        this.wasm = new api.Memory({ initial: pages, maximum: Math.ceil(this.maxBytes / WASM_PAGE_BYTES) });
      } else {
        this.wasm.grow(pages - this.wasm.buffer.byteLength / WASM_PAGE_BYTES);
      }
    } catch {
      // Refused (V8 reserves gigabytes of address space per memory: under `ulimit -v 4000000` Node refuses one): the
      // ordinary way, with what is written so far copied.
      this.wasm = undefined;
      return undefined;
    }
    return Buffer.from(this.wasm.buffer, 0, Math.min(pages * WASM_PAGE_BYTES, this.maxBytes));
  }

  private copiedTo(size: number): Buffer {
    const next = Buffer.allocUnsafeSlow(size);
    this.view.copy(next);
    return next;
  }
}
