/**
 * How long the smoke run waits and watches. These bound the harness, not the plugin (the plugin's own limits
 * are in src/limits.ts and the scenarios read them from there).
 */

/** Between two looks at something the harness waits for (a line of output, a status, a prompt). */
export const POLL_MS = 20;
/** The longest a scenario waits for something it expects to see, unless it says otherwise. */
export const WAIT_MS = 10_000;
/** How long the harness watches for something that must NOT happen (a process, a prompt) before it believes it. */
export const QUIET_MS = 200;
/** One scenario run, start to end; past this it fails as hung (the plugin is then still disposed). */
export const SCENARIO_TIMEOUT_MS = 60_000;
/** After dispose: how long descriptors and children get to go away before they count as left behind. */
export const CLEANUP_SETTLE_MS = 3_000;
