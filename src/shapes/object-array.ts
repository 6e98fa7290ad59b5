/** One element that is no small integer: its array's elements kind holds anything. */
const OBJECT_ELEMENTS: readonly unknown[] = [null];

/**
 * A new empty array made for objects and strings from the start. An array literal `[]` starts out holding small
 * integers only (V8's SMI elements kind) and changes kind at its first push of anything else. The optimized code of
 * a buffer's pushes, compiled while the PTYs before ran, met each new PTY's arrays still in the first kind and was
 * thrown away ("not a Smi" in `--trace-deopt`, once per PTY in the line store's `keptLines`, the raw tail's `append`
 * and the open line's `putKept`), and V8 compiled the ingest path again (docs/perf-journal.md, twenty-fourth
 * session). A slice of an array of objects keeps that array's kind.
 */
export function objectArray<T>(): T[] {
  return OBJECT_ELEMENTS.slice(0, 0) as T[];
}

/** Past this many elements an emptied array is let go: its memory is no longer a few hundred bytes. */
const REUSED_ELEMENTS_MAX = 64;

/**
 * `array` emptied in place, for use again; a new one when it held more than REUSED_ELEMENTS_MAX. Emptied by `pop`:
 * V8 keeps the memory an array's elements take through a pop, but gives it back at `length = 0` (and a new array
 * takes new memory at its first push), so an array of the open line's parts, emptied at every line a flood finishes,
 * made ~180 bytes of young garbage per chunk (docs/perf-journal.md, thirty-first session).
 */
export function emptiedForReuse<T>(array: T[]): T[] {
  if (array.length > REUSED_ELEMENTS_MAX) return objectArray();
  while (array.length > 0) array.pop();
  return array;
}
