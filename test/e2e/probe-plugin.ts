/**
 * A tiny throw-away OpenCode plugin (plain ESM JavaScript, no imports but node:fs) used to prove the harness
 * and to observe what OpenCode really does. Every hook call is appended as one JSON line to `logPath`.
 *
 * Tools (plain objects, the shape `tool()` from `@opencode-ai/plugin` returns: `{description, args, execute}`):
 *  - `echo_probe`  returns `probe-ok <sessionID>` (args: `{}`)
 *  - `fail_probe`  throws `Error("probe failure: boom")`
 *  - `ask_probe`   calls `ctx.ask({permission: 'bash', patterns: ['x'], always: [], metadata: {}})`, then returns
 *                  `ask-allowed`; a rejection propagates as the tool error
 *  - `big_probe`   returns 5000 numbered lines (~150 kB) to show OpenCode's output truncation
 *  - `spawn_probe` starts `sleep 300` in a new session (like a PTY child: out of OpenCode's process group) and
 *                  returns its pid; used to prove leftover detection
 */
import fs from 'node:fs';
import { sleep } from '../../src/testkit/waits.js';

export interface ProbeLogEntry {
  t: number;
  kind: 'init' | 'execute' | 'ask' | 'asked' | 'event' | 'dispose' | 'dispose-done';
  [key: string]: unknown;
}

/** Event types whose full `properties` are logged (others: type only). */
const DETAILED_EVENTS = [
  'session.deleted',
  'session.idle',
  'session.status',
  'permission.asked',
  'permission.replied',
  'session.error',
];

export interface ProbeOptions {
  /** Also `export default` the plugin function (same object as the named export). */
  alsoDefault?: boolean;
  /** The `dispose` hook awaits this long before logging `dispose-done`. */
  disposeDelayMs?: number;
}

export function probePluginSource(logPath: string, exportName = 'ProbePlugin', opts: ProbeOptions = {}): string {
  return `import fs from "node:fs";
import { spawn } from "node:child_process";
const LOG = ${JSON.stringify(logPath)};
const DETAILED = ${JSON.stringify(DETAILED_EVENTS)};
const log = (o) => fs.appendFileSync(LOG, JSON.stringify({ t: Date.now(), plugin: ${JSON.stringify(exportName)}, ...o }) + "\\n");

export const ${exportName} = async (input, options) => {
  log({ kind: "init", inputKeys: Object.keys(input).sort(), directory: input.directory, worktree: input.worktree, serverUrl: String(input.serverUrl ?? ""), options: options ?? null });
  return {
    tool: {
      echo_probe: {
        description: "Echo probe tool: returns probe-ok and the session id",
        args: {},
        async execute(args, ctx) {
          log({ kind: "execute", tool: "echo_probe", args, ctxKeys: Object.keys(ctx).sort(), sessionID: ctx.sessionID, messageID: ctx.messageID, agent: ctx.agent, callID: ctx.callID ?? null });
          return "probe-ok " + ctx.sessionID;
        },
      },
      fail_probe: {
        description: "Always throws",
        args: {},
        async execute() {
          log({ kind: "execute", tool: "fail_probe" });
          throw new Error("probe failure: boom");
        },
      },
      ask_probe: {
        description: "Asks for the bash permission, then returns",
        args: {},
        async execute(args, ctx) {
          log({ kind: "ask", sessionID: ctx.sessionID });
          try {
            await ctx.ask({ permission: "bash", patterns: ["x"], always: [], metadata: {} });
          } catch (e) {
            log({ kind: "asked", outcome: "rejected", name: e && e.name, message: String(e && e.message) });
            throw e;
          }
          log({ kind: "asked", outcome: "allowed" });
          return "ask-allowed";
        },
      },
      big_probe: {
        description: "Returns 5000 numbered lines (about 150 kB)",
        args: {},
        async execute() {
          return Array.from({ length: 5000 }, (_, i) => "line " + String(i + 1).padStart(5, "0") + " " + "x".repeat(19)).join("\\n");
        },
      },
      spawn_probe: {
        description: "Starts a detached sleep 300 and returns its pid",
        args: {},
        async execute() {
          const child = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
          child.unref();
          log({ kind: "execute", tool: "spawn_probe", pid: child.pid });
          return "spawned " + child.pid;
        },
      },
    },
    event: async ({ event }) => {
      log({ kind: "event", type: event.type, ...(DETAILED.includes(event.type) ? { properties: event.properties } : {}) });
    },
    dispose: async () => {
      log({ kind: "dispose" });
      await new Promise((r) => setTimeout(r, ${opts.disposeDelayMs ?? 0}));
      log({ kind: "dispose-done" });
    },
  };
};
${opts.alsoDefault ? `export default ${exportName};\n` : ''}`;
}

export function readProbeLog(logPath: string): ProbeLogEntry[] {
  if (!fs.existsSync(logPath)) return [];
  return fs
    .readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ProbeLogEntry);
}

/** Polls the probe log until `pred` holds for some entry. */
export async function waitForProbe(
  logPath: string,
  pred: (e: ProbeLogEntry) => boolean,
  timeoutMs = 15_000,
): Promise<ProbeLogEntry> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = readProbeLog(logPath).find(pred);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`probe log: no matching entry after ${timeoutMs} ms`);
    await sleep(50);
  }
}
