/**
 * The one set of wait helpers for the tests, the smoke run and the bench. These bound the harnesses, not the
 * plugin: the plugin's own limits are in src/limits.ts.
 */

/** The longest a harness waits for something it expects, unless it says otherwise (generous: a noisy machine). */
export const DEFAULT_WAIT_MS = 20_000;
/** Between two looks at what a harness waits for. */
export const DEFAULT_POLL_MS = 25;

/**
 * How long a test gives the core's spare output socket to be paired once it is due (OUTPUT_CHANNEL_REFILL_MS after a
 * start): a few ms, on a loaded machine far more.
 */
export const SPARE_PAIRED_MS = 500;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns something other than undefined or false, and resolves with that; rejects
 * naming `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
  stepMs = DEFAULT_POLL_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}
