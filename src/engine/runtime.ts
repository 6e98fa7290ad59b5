/**
 * Whether the plugin runs in Bun (OpenCode 1.18 runs plugins in the Bun inside its own binary) rather than Node (the
 * V2 host). Bun differs where it matters to the engine: its fourth stdio pipe (script-invocation.ts), its paused
 * pipes (streams/pipe-backpressure.ts), the sockets it hands a child non-blocking (streams/output-channel.ts), and it
 * spawns without forking (text/memory-outside-forks.ts).
 */
export const RUNS_IN_BUN = typeof (process.versions as { bun?: string }).bun === 'string';
