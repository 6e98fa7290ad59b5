/** One element that is no small integer: its array's elements kind holds anything. */
const OBJECT_ELEMENTS: readonly unknown[] = [null];

/**
 * A new empty array made for objects and strings from the start. An array literal `[]` starts out holding small
 * integers only (V8's SMI elements kind) and changes kind at its first push of anything else. The optimized code of
 * a buffer's pushes, compiled while the PTYs before ran, met each new PTY's arrays still in the first kind and was
 * thrown away ("not a Smi" in `--trace-deopt`, once per PTY in the line store's `keptLines`, the raw tail's `append`
 * and the open line's `putKept`), and V8 compiled the ingest path again (docs/PERFORMANCE.md, twenty-fourth
 * session). A slice of an array of objects keeps that array's kind.
 */
export function objectArray<T>(): T[] {
  return OBJECT_ELEMENTS.slice(0, 0) as T[];
}
