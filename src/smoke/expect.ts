import { inspect } from 'node:util';
import { sleep } from '../testkit/waits.js';
import { POLL_MS, WAIT_MS } from './timing.js';

/** A scenario saw something other than what it expected. The message always says both. */
export class SmokeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmokeFailure';
  }
}

/** A short, single-line rendering of an observed value for failure messages. */
export function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 300 ? `${value.slice(0, 300)}…(${value.length} chars)` : value);
  return inspect(value, { depth: 4, breakLength: Infinity, maxArrayLength: 12, maxStringLength: 200 });
}

/** Fails with "what: expected …, saw …"; `saw` is a description (use `show(value)` for a value). */
export function fail(what: string, expected: string, saw: string): never {
  throw new SmokeFailure(`${what}: expected ${expected}, saw ${saw}`);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return inspect(a, { depth: Infinity, sorted: true }) === inspect(b, { depth: Infinity, sorted: true });
}

export function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (!deepEqual(actual, expected)) fail(what, show(expected), show(actual));
}

export function expectThat<T>(actual: T, ok: (value: T) => boolean, expected: string, what: string): void {
  if (!ok(actual)) fail(what, expected, show(actual));
}

/**
 * Polls `probe` until `ok` holds; on timeout fails with the last observation.
 * @example await eventually(() => readLines(id), (l) => l.includes('42'), 'a line "42"', 'REPL answer')
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  expected: string,
  what: string,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() >= deadline) fail(what, `${expected} within ${timeoutMs} ms`, show(value));
    await sleep(POLL_MS);
  }
}

/** Watches `probe` for `ms` and fails the first time `bad` holds (something that must not happen). */
export async function never<T>(
  probe: () => T | Promise<T>,
  bad: (value: T) => boolean,
  expected: string,
  what: string,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (bad(value)) fail(what, expected, show(value));
    if (Date.now() >= deadline) return;
    await sleep(POLL_MS);
  }
}

/** Resolves with the promise's value, or fails saying it was still pending after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SmokeFailure(`${what}: expected it to settle within ${ms} ms, saw it still pending`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
