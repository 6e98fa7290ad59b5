import { LINE_SCAN_MAX_CHUNK_BYTES } from '../limits.js';
import { LINE_SCAN_WASM_BASE64 } from './wasm/line-scan-binary.js';

/** Lines per index group of a plain run (LineStore's GROUP_LINES): the wasm module counts in 64s. */
export const SCAN_GROUP_LINES = 64;
/** Where group ends are written: after the chunk; a chunk of n bytes has at most n / 64 of them. */
const GROUP_ENDS_AT = LINE_SCAN_MAX_CHUNK_BYTES;

interface LineScanExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  plain(n: number): number;
  groups(from: number, to: number, out: number): number;
}

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: unknown };
}

/**
 * Native-speed scans of a chunk of ASCII output, in a tiny WebAssembly module (line-scan.wat, SIMD): whether it is
 * plain (printable ASCII and `\n` only) and where every 64th line ends. These two scans were most of what the
 * buffer cost per byte: two regex passes, 2–2.6 ms per MiB, against 0.2 for the module with its copy
 * (docs/perf-journal.md). Written by hand because nothing on the registry does this one job without a native
 * addon; WebAssembly runs in Node and in Bun alike. Only chunks whose bytes are their characters (ASCII) are
 * scanned; anything else takes the JS path, which gives the same answers.
 */
export class LineScanner {
  private readonly bytes: Uint8Array;
  private readonly ends: Int32Array;
  private loaded = -1;

  private constructor(private readonly module: LineScanExports) {
    this.bytes = new Uint8Array(module.memory.buffer, 0, LINE_SCAN_MAX_CHUNK_BYTES);
    this.ends = new Int32Array(module.memory.buffer, GROUP_ENDS_AT, LINE_SCAN_MAX_CHUNK_BYTES / SCAN_GROUP_LINES);
  }

  /** The module, or undefined where WebAssembly (with SIMD) is not available: callers then scan in JS. */
  static create(): LineScanner | undefined {
    const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
    if (wasm === undefined) return undefined;
    try {
      const module = new wasm.Module(Buffer.from(LINE_SCAN_WASM_BASE64, 'base64'));
      return new LineScanner(new wasm.Instance(module).exports as LineScanExports);
    } catch {
      return undefined;
    }
  }

  /**
   * Takes `chunk` (the bytes of the text being rendered) for the group scans that follow, and says whether it is
   * plain. False, and nothing taken, for a chunk too large for the module.
   */
  load(chunk: Uint8Array): boolean {
    this.loaded = -1;
    if (chunk.length > LINE_SCAN_MAX_CHUNK_BYTES) return false;
    this.bytes.set(chunk);
    this.loaded = chunk.length;
    return this.module.plain(chunk.length) === 1;
  }

  /**
   * The `\n` in [from, to) of the loaded chunk: their count, and (in `ends`, valid until the next call) the offset
   * just past every 64th of them, counted from `from`.
   */
  groups(from: number, to: number): { count: number; ends: Int32Array } {
    if (from < 0 || to > this.loaded || from > to) throw new RangeError(`no loaded bytes at [${from}, ${to})`);
    const count = this.module.groups(from, to, GROUP_ENDS_AT);
    return { count, ends: this.ends };
  }
}

/** One per host process: a scan is synchronous, start to end, so every buffer can share it. */
export const lineScanner: LineScanner | undefined = LineScanner.create();
