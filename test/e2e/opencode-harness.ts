/**
 * Runs the real OpenCode (npm `opencode-ai`, pinned) against a scripted `MockModel`, fully isolated:
 * a temp root holding the project dir, HOME and the four XDG dirs, a project `opencode.json` pointing the
 * `mock` provider at the mock, the `OPENCODE_DISABLE_*` switches, and `@opencode-ai/plugin` pre-installed
 * (or stubbed) in every config dir so OpenCode never waits on the network.
 *
 * Two ways to drive it:
 *  - `runOnce(prompt)`: `opencode run --format json --model mock/mock-model …` (one process, one turn).
 *  - `serve()`: `opencode serve` + an `@opencode-ai/sdk/v2` client, an event recorder, and `stop()`.
 *
 * Every process started is tracked (see processes.ts) and ended by `dispose()` / `useHarnessCleanup()`.
 * See test/e2e/README.md for what was learned about OpenCode's real behaviour.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createOpencodeClient, type Event as OpencodeEvent, type OpencodeClient } from '@opencode-ai/sdk/v2/client';
import { closeAllMockModels, type MockModel } from './mock-model.js';
import {
  endTracked,
  findMarkedProcesses,
  killAllTracked,
  killMarkedProcesses,
  MARK_VAR,
  spawnTracked,
  type MarkedProcess,
  type Tracked,
} from './processes.js';
import { sleep } from '../../src/testkit/waits.js';

export type { OpencodeClient, OpencodeEvent };

export const OPENCODE_VERSION = '1.18.33';
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const OPENCODE_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'opencode');
export const PROVIDER_ID = 'mock';
export const MODEL_ID = 'mock-model';
export const MODEL_REF = `${PROVIDER_ID}/${MODEL_ID}`;

/** Timeouts (ms). Generous: a cold `opencode run` takes 5–12 s on this machine. */
export const DEFAULT_RUN_TIMEOUT_MS = 90_000;
export const DEFAULT_SERVE_READY_TIMEOUT_MS = 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_EVENT_TIMEOUT_MS = 30_000;
export const DEFAULT_STOP_GRACE_MS = 5_000;
/**
 * After the instance answered, the longest wait for OpenCode's log to show that the tool registry was built
 * (`TOOL_REGISTRY_LOG_LINE`): plugin init errors are logged before it, and the log is flushed in order.
 */
export const PLUGIN_ERROR_SETTLE_MS = 10_000;
/** Logged by OpenCode 1.18.33 when the tool registry is built, after every plugin was loaded (or failed). */
export const TOOL_REGISTRY_LOG_LINE = 'message="shell tool using shell"';

/** The built plugin under test (`npm run build`), and the export OpenCode should initialise. */
export const BUILT_PLUGIN_ENTRY = path.join(REPO_ROOT, 'dist', 'index.js');
export const BUILT_PLUGIN_EXPORT = 'LocalPtyPlugin';

export function builtPluginAvailable(): boolean {
  return fs.existsSync(BUILT_PLUGIN_ENTRY);
}

/**
 * Loads this package the way a user's config would: `"plugin": ["file:///<repo>"]`, resolved through
 * package.json `exports["."]` (so `dist/index.js`). Every export of that module must be a plugin function.
 */
export function localPtyViaConfigKey(): Pick<HarnessOptions, 'plugin'> {
  return { plugin: [pathToFileURL(REPO_ROOT).href] };
}

/** Loads `dist/index.js` through a `plugins/local-pty.js` shim in the global config dir re-exporting only `LocalPtyPlugin`. */
export function localPtyViaPluginsDir(): Pick<HarnessOptions, 'pluginFiles'> {
  return {
    pluginFiles: {
      'local-pty.js': `export { ${BUILT_PLUGIN_EXPORT} } from ${JSON.stringify(pathToFileURL(BUILT_PLUGIN_ENTRY).href)};\n`,
    },
  };
}

/** Like `localPtyViaPluginsDir`, in the project's own config dir (`<project>/.opencode/plugins/local-pty.js`). */
export function localPtyViaProjectPluginsDir(): Pick<HarnessOptions, 'projectPluginFiles'> {
  return { projectPluginFiles: localPtyViaPluginsDir().pluginFiles };
}

const DISABLE_ENV: Record<string, string> = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
};

/**
 * How `@opencode-ai/plugin` is made present in each config dir (OpenCode otherwise npm-installs it there,
 * in the background, at every start in a fresh dir: ~8 s and network).
 *  - `stub`: an empty `node_modules/` plus a `package-lock.json` that lists the dependency. OpenCode 1.18.33
 *    only checks that `node_modules/` exists and that every wanted name is in the lock's root deps, so it
 *    skips the install. Offline and instant. Plugin files cannot `import '@opencode-ai/plugin'` then.
 *  - `real`: `npm install @opencode-ai/plugin@<version>` once into a cache under node_modules/.cache, then
 *    each config dir gets a symlink to that node_modules plus the package files (needs the registry once).
 */
export type PluginPackageMode = 'stub' | 'real';

export interface HarnessOptions {
  /** The mock to point the `mock` provider at (or its base URL, e.g. `http://127.0.0.1:PORT/v1`). */
  model: MockModel | string;
  /** The config `permission` key, e.g. `{ bash: 'ask' }`. */
  permission?: Record<string, unknown>;
  /** The config `plugin` key, e.g. `[pathToFileURL(REPO_ROOT).href]` (a package dir loads via its `exports`). */
  plugin?: string[];
  /** Files for the global config dir's `plugins/` (`$XDG_CONFIG_HOME/opencode/plugins/<name>`). */
  pluginFiles?: Record<string, string>;
  /** Files for the project's `.opencode/plugins/` (creates `.opencode/`, a second config dir). */
  projectPluginFiles?: Record<string, string>;
  /** Merged last into opencode.json. */
  extraConfig?: Record<string, unknown>;
  /** More model ids for the `mock` provider (besides `mock-model`), e.g. to prove a turn kept a non-default model. */
  extraModels?: string[];
  /** Default `stub`. */
  pluginPackage?: PluginPackageMode;
  /** `git init` the project dir (default false; OpenCode then files everything under project "global"). */
  git?: boolean;
  /** Extra environment for every OpenCode process. */
  env?: Record<string, string>;
  /** Used in the temp dir name and log lines. */
  label?: string;
  /** Keep the temp root after dispose (also when env `OPENCODE_E2E_KEEP=1`). */
  keep?: boolean;
}

export interface RunOnceOptions {
  /** `--auto`: auto-approve `ask` permissions (otherwise `opencode run` rejects them). */
  auto?: boolean;
  /** `--format json` (default true): stdout is JSON lines, parsed into `events`. */
  json?: boolean;
  printLogs?: boolean;
  timeoutMs?: number;
  extraArgs?: string[];
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** Parsed JSON lines of stdout (with `json`), e.g. `{type: "tool_use", sessionID, part: {tool, state}}`. */
  events: Array<Record<string, unknown> & { type: string }>;
  sessionID?: string;
  /**
   * Plugin functions that threw on init during this run (from OpenCode's log). A plugin that cannot even be
   * imported (syntax error, missing module, bad `plugin` path) is skipped SILENTLY by `opencode run`: check
   * that its tools were offered (`model.modelRequests[0].toolNames`), or use `serve()`, which sees those too.
   */
  pluginLoadErrors: string[];
}

export interface ServeOptions {
  /** Time allowed for the server to answer `GET /config`. */
  readyTimeoutMs?: number;
  /** Default per-request timeout of the SDK client (the event stream is exempt). */
  requestTimeoutMs?: number;
  printLogs?: boolean;
  /** Subscribe to the global event stream before plugins load and record every event (default true). */
  recordEvents?: boolean;
  /**
   * Throw from `serve()` when a plugin failed to load: import failures (events) or throwing plugin functions
   * (log; costs up to PLUGIN_ERROR_SETTLE_MS waiting for OpenCode's log flush). Default true.
   */
  failOnPluginLoadError?: boolean;
}

export interface StopOptions {
  /**
   * First ask the server to dispose the project instance (`client.instance.dispose()`), which runs every
   * plugin's `dispose` hook; SIGTERM alone does NOT run them in OpenCode 1.18.33. Default true.
   */
  disposeInstance?: boolean;
  /** Time allowed for the dispose request plus the `server.instance.disposed` event. Default 30 s. */
  disposeTimeoutMs?: number;
  /** Grace between the signal and SIGKILL. Default 5 s. */
  graceMs?: number;
  signal?: NodeJS.Signals;
}

export interface StopResult {
  /** Time the `instance.dispose` request took (undefined when not asked for). */
  disposeMs?: number;
  /** Error of the dispose request, if any. */
  disposeError?: string;
  /** Time from the signal until the process had exited. */
  durationMs: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** SIGKILL was needed after the grace period. */
  forced: boolean;
}

export class EventRecorder {
  /** Every event (the `payload` of the global stream), in arrival order. `sync` envelopes are skipped. */
  readonly events: OpencodeEvent[] = [];
  /** `Date.now()` when each event of `events` arrived (same index). */
  readonly receivedAt: number[] = [];
  /** The `directory` each event was published for (`"global"` for server-wide ones; same index). */
  readonly directories: string[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  error: unknown;

  /**
   * Starts consuming the GLOBAL event stream (`client.global.event()`, `GET /global/event`): unlike `/event`
   * it does not create the project instance, so it can be connected before plugins load and catches their
   * load errors. Resolves once the stream delivered `server.connected`.
   */
  async start(client: OpencodeClient, timeoutMs = DEFAULT_EVENT_TIMEOUT_MS): Promise<void> {
    const sub = await client.global.event({ signal: this.abort.signal, sseMaxRetryAttempts: 1 });
    this.done = (async () => {
      try {
        for await (const raw of sub.stream) {
          const env = raw as { directory?: string; payload?: { type?: string } };
          const ev = (env.payload ?? raw) as OpencodeEvent | { type: 'sync' };
          if (!ev || ev.type === 'sync') continue;
          this.events.push(ev as OpencodeEvent);
          this.receivedAt.push(Date.now());
          this.directories.push(env.directory ?? 'global');
          for (const w of [...this.waiters]) w();
        }
      } catch (e) {
        if (!this.abort.signal.aborted) this.error = e;
      }
    })();
    await this.waitFor((e) => e.type === 'server.connected', timeoutMs, 'server.connected');
  }

  /**
   * Plugin modules that failed to load. OpenCode 1.18.33 reports a module that cannot be imported (syntax
   * error, missing module, bad `plugin` path, a non-function export) only as a `session.error` event without
   * sessionID: `{error: {name: "UnknownError", data: {message: "Failed to load plugin <url>: <reason>"}}}`,
   * never in its log. (A plugin FUNCTION that throws is only logged: see `loggedPluginLoadErrors()`.)
   */
  pluginLoadErrors(): string[] {
    return this.ofType('session.error')
      .map((e) => (e.properties.error as { data?: { message?: unknown } } | undefined)?.data?.message)
      .filter((m): m is string => typeof m === 'string' && m.startsWith('Failed to load plugin'));
  }

  /** First event (already recorded or future) matching `pred`. */
  waitFor<E extends OpencodeEvent = OpencodeEvent>(
    pred: (e: OpencodeEvent) => boolean,
    timeoutMs = DEFAULT_EVENT_TIMEOUT_MS,
    what = 'event',
  ): Promise<E> {
    const hit = this.events.find(pred);
    if (hit) return Promise.resolve(hit as E);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.events.find(pred);
        if (!found) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found as E);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; saw types: ${[...new Set(this.events.map((e) => e.type))].join(', ')}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Waits for an event of `type` (optionally also matching `pred`). */
  waitForType<T extends OpencodeEvent['type']>(
    type: T,
    pred: (e: Extract<OpencodeEvent, { type: T }>) => boolean = () => true,
    timeoutMs = DEFAULT_EVENT_TIMEOUT_MS,
  ): Promise<Extract<OpencodeEvent, { type: T }>> {
    return this.waitFor((e) => e.type === type && pred(e as Extract<OpencodeEvent, { type: T }>), timeoutMs, type);
  }

  ofType<T extends OpencodeEvent['type']>(type: T): Array<Extract<OpencodeEvent, { type: T }>> {
    return this.events.filter((e) => e.type === type) as Array<Extract<OpencodeEvent, { type: T }>>;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

export interface ServeHandle {
  url: string;
  port: number;
  client: OpencodeClient;
  /** The recorded global event stream (stays empty with `recordEvents: false`). */
  events: EventRecorder;
  process: Tracked;
  /** Output so far. */
  output(): { stdout: string; stderr: string };
  /** Plugin load failures seen so far (events for import failures, the log for throwing plugin functions). */
  pluginLoadErrors(): string[];
  /** How long from spawn until the project instance was up with its plugins loaded (tool ids listed). */
  readyMs: number;
  /** Every tool id the instance registered (`GET /experimental/tool/ids`), plugin tools included, unsorted. */
  toolIds: string[];
  /** How long from spawn until the server printed that it listens. */
  listeningMs: number;
  /** Disposes the instance (plugin `dispose` hooks), then SIGTERMs the server (SIGKILL after `graceMs`); reports timings. */
  stop(opts?: StopOptions): Promise<StopResult>;
}

const log = (label: string, msg: string): void => {
  if (process.env.OPENCODE_E2E_QUIET) return;
  process.stdout.write(`[e2e ${label}] ${msg}\n`);
};

/** Runs `fn`, logs and returns how long it took. */
export async function timed<T>(label: string, step: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  try {
    return await fn();
  } finally {
    log(label, `${step}: ${Date.now() - start} ms`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function execFileP(
  cmd: string,
  args: string[],
  opts: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, timeout: opts.timeoutMs, env: opts.env, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

const PLUGIN_PKG = '@opencode-ai/plugin';

/** Writes the files that make OpenCode skip its npm install of `@opencode-ai/plugin` in `dir`. */
function stubPluginPackage(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  const deps = { [PLUGIN_PKG]: OPENCODE_VERSION };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: deps }, null, 2));
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(
      { name: 'opencode-config', lockfileVersion: 3, requires: true, packages: { '': { dependencies: deps } } },
      null,
      2,
    ),
  );
}

/**
 * The real `@opencode-ai/plugin@OPENCODE_VERSION` is a pinned dev dependency, installed by `npm ci` with the
 * rest, so no run waits on the network. A config dir gets the same package files as the stub (so OpenCode skips
 * its own install) and a `node_modules` that is this repo's: the package and its dependencies resolve there.
 */
async function linkRealPluginPackage(dir: string): Promise<void> {
  const installed = path.join(REPO_ROOT, 'node_modules', PLUGIN_PKG, 'package.json');
  const version = (JSON.parse(fs.readFileSync(installed, 'utf8')) as { version?: string }).version;
  if (version !== OPENCODE_VERSION)
    throw new Error(`${PLUGIN_PKG} ${version} is installed, the e2e suite needs ${OPENCODE_VERSION} (npm ci)`);
  stubPluginPackage(dir);
  fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
}

export class OpencodeHarness {
  readonly id = randomUUID().slice(0, 8);
  readonly root: string;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly xdg: { config: string; data: string; cache: string; state: string };
  /** `$XDG_CONFIG_HOME/opencode`: the global config dir (its `plugins/` is globbed). */
  readonly configDir: string;
  /** `<project>/.opencode` (only created with `projectPluginFiles`). */
  readonly projectConfigDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly label: string;
  readonly config: Record<string, unknown>;
  private readonly started: Tracked[] = [];
  private readonly recorders: EventRecorder[] = [];
  private disposed = false;

  private constructor(readonly opts: HarnessOptions) {
    this.label = opts.label ?? 'harness';
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), `oc-e2e-${this.label.replace(/[^\w-]/g, '_')}-`));
    this.projectDir = path.join(this.root, 'project');
    this.homeDir = path.join(this.root, 'home');
    this.xdg = {
      config: path.join(this.root, 'xdg', 'config'),
      data: path.join(this.root, 'xdg', 'data'),
      cache: path.join(this.root, 'xdg', 'cache'),
      state: path.join(this.root, 'xdg', 'state'),
    };
    this.configDir = path.join(this.xdg.config, 'opencode');
    this.projectConfigDir = path.join(this.projectDir, '.opencode');
    for (const d of [this.projectDir, this.homeDir, this.configDir, ...Object.values(this.xdg)])
      fs.mkdirSync(d, { recursive: true });

    const baseURL = typeof opts.model === 'string' ? opts.model : opts.model.baseURL;
    this.config = {
      provider: {
        [PROVIDER_ID]: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Mock',
          options: { baseURL, apiKey: 'mock-key' },
          models: Object.fromEntries(
            [MODEL_ID, ...(opts.extraModels ?? [])].map((id) => [
              id,
              { name: `Mock ${id}`, tool_call: true, limit: { context: 128_000, output: 8_000 } },
            ]),
          ),
        },
      },
      model: MODEL_REF,
      small_model: MODEL_REF,
      autoupdate: false,
      share: 'disabled',
      ...(opts.permission ? { permission: opts.permission } : {}),
      ...(opts.plugin ? { plugin: opts.plugin } : {}),
      ...(opts.extraConfig ?? {}),
    };
    fs.writeFileSync(path.join(this.projectDir, 'opencode.json'), JSON.stringify(this.config, null, 2));

    for (const [name, src] of Object.entries(opts.pluginFiles ?? {})) this.writePluginFile(name, src);
    for (const [name, src] of Object.entries(opts.projectPluginFiles ?? {})) this.writePluginFile(name, src, 'project');

    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) =>
          !k.startsWith('OPENCODE') &&
          !k.startsWith('XDG_') &&
          !/_API_KEY$/.test(k) &&
          !['PWD', 'OLDPWD', 'INIT_CWD'].includes(k),
      ),
    );
    this.env = {
      ...inherited,
      // OpenCode (Bun) takes its working directory from $PWD, not from the process cwd.
      PWD: this.projectDir,
      HOME: this.homeDir,
      XDG_CONFIG_HOME: this.xdg.config,
      XDG_DATA_HOME: this.xdg.data,
      XDG_CACHE_HOME: this.xdg.cache,
      XDG_STATE_HOME: this.xdg.state,
      ...DISABLE_ENV,
      [MARK_VAR]: this.id,
      ...(opts.env ?? {}),
    };
  }

  /** Creates the isolated dirs and config, and pre-installs `@opencode-ai/plugin` in every config dir. */
  static async create(opts: HarnessOptions): Promise<OpencodeHarness> {
    const h = new OpencodeHarness(opts);
    allHarnesses.add(h);
    const dirs = [h.configDir, ...(opts.projectPluginFiles ? [h.projectConfigDir] : [])];
    await timed(
      h.label,
      `prepare ${opts.pluginPackage ?? 'stub'} ${PLUGIN_PKG} in ${dirs.length} config dir(s)`,
      async () => {
        for (const d of dirs) {
          if (opts.pluginPackage === 'real') await linkRealPluginPackage(d);
          else stubPluginPackage(d);
        }
      },
    );
    if (opts.git) await execFileP('git', ['init', '-q', '.'], { cwd: h.projectDir, timeoutMs: 10_000 });
    log(h.label, `root ${h.root}`);
    return h;
  }

  /** Writes `plugins/<name>` into the global config dir (or the project's `.opencode/`). */
  writePluginFile(name: string, source: string, where: 'global' | 'project' = 'global'): string {
    const dir = path.join(where === 'global' ? this.configDir : this.projectConfigDir, 'plugins');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    fs.writeFileSync(file, source);
    return file;
  }

  /**
   * Writes `plugins/<name>` re-exporting named exports of a module (e.g. the built `dist/index.js`).
   * Re-export only ONE name per plugin function: OpenCode initialises every exported function it finds.
   */
  writePluginReexport(
    name: string,
    modulePath: string,
    exportNames: string[],
    where: 'global' | 'project' = 'global',
  ): string {
    const url = pathToFileURL(modulePath).href;
    return this.writePluginFile(name, `export { ${exportNames.join(', ')} } from ${JSON.stringify(url)};\n`, where);
  }

  private spawnOpencode(args: string[], label: string): Tracked {
    if (this.disposed) throw new Error('harness disposed');
    const t = spawnTracked(OPENCODE_BIN, args, {
      cwd: this.projectDir,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      label: `${this.label}:${label}`,
    });
    this.started.push(t);
    return t;
  }

  /** `opencode run --model mock/mock-model [--auto] [--format json] <prompt>` in the project dir. */
  async runOnce(prompt: string, o: RunOnceOptions = {}): Promise<RunResult> {
    const json = o.json ?? true;
    const args = [
      'run',
      '--model',
      MODEL_REF,
      ...(json ? ['--format', 'json'] : []),
      ...(o.auto ? ['--auto'] : []),
      ...(o.printLogs ? ['--print-logs'] : []),
      ...(o.extraArgs ?? []),
      prompt,
    ];
    const timeoutMs = o.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    const start = Date.now();
    const logOffset = this.logs().length;
    const t = this.spawnOpencode(args, 'run');
    let stdout = '';
    let stderr = '';
    t.child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    t.child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void endTracked(t, { graceMs: 2_000 });
    }, timeoutMs);
    const { code, signal } = await t.exited;
    clearTimeout(timer);
    const durationMs = Date.now() - start;
    log(this.label, `opencode run: ${durationMs} ms, exit ${code ?? signal}${timedOut ? ' (TIMED OUT)' : ''}`);
    const events = json
      ? stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as Record<string, unknown> & { type: string }];
            } catch {
              return [];
            }
          })
      : [];
    const sessionID = events.find((e) => typeof e.sessionID === 'string')?.sessionID as string | undefined;
    const pluginLoadErrors = this.loggedPluginLoadErrors(logOffset);
    if (pluginLoadErrors.length) log(this.label, `plugin load errors: ${pluginLoadErrors.join('; ')}`);
    return { code, signal, timedOut, durationMs, stdout, stderr, events, sessionID, pluginLoadErrors };
  }

  /** `opencode serve` on a free port; resolves once `GET /config` answers (and the event stream is connected). */
  async serve(o: ServeOptions = {}): Promise<ServeHandle> {
    const port = await freePort();
    const logOffset = this.logs().length;
    const start = Date.now();
    const t = this.spawnOpencode(
      ['serve', '--port', String(port), '--hostname', '127.0.0.1', ...(o.printLogs ? ['--print-logs'] : [])],
      'serve',
    );
    let stdout = '';
    let stderr = '';
    t.child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    t.child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const url = `http://127.0.0.1:${port}`;
    const readyTimeoutMs = o.readyTimeoutMs ?? DEFAULT_SERVE_READY_TIMEOUT_MS;
    const output = (): string => `${stdout}\n${stderr}`;
    try {
      // Wait for "opencode server listening on http://…" (GET /global/health would do too, but it takes ~30 s
      // to answer in 1.18.33; GET /config would create the project instance before events are recorded).
      await waitForOutput(() => stdout.includes(`listening on ${url}`), readyTimeoutMs, t, output);
    } catch (e) {
      await endTracked(t, { graceMs: 1_000 });
      throw e;
    }
    const listeningMs = Date.now() - start;
    log(this.label, `opencode serve listening after ${listeningMs} ms on ${url}`);

    const requestTimeoutMs = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const client = createOpencodeClient({
      baseUrl: url,
      directory: this.projectDir,
      // every request gets a timeout, except the event streams
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        const req = new Request(input, init);
        const isStream =
          new URL(req.url).pathname.endsWith('/event') || req.headers.get('accept') === 'text/event-stream';
        if (isStream) return fetch(req);
        return fetch(req, { signal: AbortSignal.any([req.signal, AbortSignal.timeout(requestTimeoutMs)]) });
      },
    });
    const events = new EventRecorder();
    this.recorders.push(events);
    let toolIds: string[] = [];
    const recording = o.recordEvents ?? true;
    try {
      if (recording) await timed(this.label, 'event stream connected', () => events.start(client));
      // the first request for the project directory creates the instance: config, plugins, tools
      await waitForOk(`${url}/config?directory=${encodeURIComponent(this.projectDir)}`, readyTimeoutMs, t, output);
      // /config may answer before the plugins are loaded; the tool registry needs them all
      const ids = await client.tool.ids({}, { throwOnError: true });
      toolIds = Array.isArray(ids.data) ? (ids.data as string[]) : [];
      if (o.failOnPluginLoadError ?? true) {
        // OpenCode flushes its log file in batches (~0.5 s), in order. A plugin function that threw on init is
        // logged before the tool registry is built, so once the registry's line is in the file, so is the error.
        // (Waiting for "the next flush" instead was flaky under load: an earlier batch could end the wait.)
        const until = Date.now() + PLUGIN_ERROR_SETTLE_MS;
        while (Date.now() < until && !this.logs().slice(logOffset).includes(TOOL_REGISTRY_LOG_LINE)) await sleep(50);
      }
    } catch (e) {
      await events.stop();
      await endTracked(t, { graceMs: 1_000 });
      throw e;
    }
    const readyMs = Date.now() - start;
    log(this.label, `opencode serve ready (instance + plugins loaded, ${toolIds.length} tools) after ${readyMs} ms`);
    const loadErrors = [...events.pluginLoadErrors(), ...this.loggedPluginLoadErrors()];
    if (loadErrors.length && (o.failOnPluginLoadError ?? true)) {
      await events.stop();
      await endTracked(t, { graceMs: 1_000 });
      throw new Error(`opencode serve: plugin(s) failed to load:\n${loadErrors.join('\n')}`);
    }

    const label = this.label;
    const projectDir = this.projectDir;
    return {
      url,
      port,
      client,
      events,
      process: t,
      readyMs,
      listeningMs,
      toolIds,
      output: () => ({ stdout, stderr }),
      pluginLoadErrors: () => [...events.pluginLoadErrors(), ...this.loggedPluginLoadErrors()],
      async stop({
        disposeInstance = true,
        disposeTimeoutMs = 30_000,
        graceMs = DEFAULT_STOP_GRACE_MS,
        signal = 'SIGTERM',
      }: StopOptions = {}) {
        let disposeMs: number | undefined;
        let disposeError: string | undefined;
        if (disposeInstance && t.isAlive()) {
          const start = Date.now();
          try {
            // The request answers at once; OpenCode then awaits every plugin's dispose hook and only then
            // emits server.instance.disposed, so that event marks the end of the plugins' cleanup.
            const n0 = events.events.length;
            await client.instance.dispose({}, { throwOnError: true, signal: AbortSignal.timeout(disposeTimeoutMs) });
            if (recording) {
              await events.waitFor(
                (e) =>
                  e.type === 'server.instance.disposed' &&
                  (e.properties as { directory?: string }).directory === projectDir &&
                  events.events.indexOf(e) >= n0,
                Math.max(1, disposeTimeoutMs - (Date.now() - start)),
                'server.instance.disposed',
              );
            }
          } catch (e) {
            disposeError = String((e as Error)?.message ?? e);
          }
          disposeMs = Date.now() - start;
          log(label, `instance.dispose: ${disposeMs} ms${disposeError ? ` (error: ${disposeError})` : ''}`);
        }
        await events.stop();
        const r = await endTracked(t, { graceMs, signal });
        log(
          label,
          `opencode serve stopped by ${signal} in ${r.durationMs} ms (exit ${r.code ?? r.signal}${r.forced ? ', needed SIGKILL' : ''})`,
        );
        return { disposeMs, disposeError, durationMs: r.durationMs, code: r.code, signal: r.signal, forced: r.forced };
      },
    };
  }

  /**
   * Plugin functions that threw while being initialised: OpenCode logs them (`level=ERROR message="failed to
   * load plugin" path=… error=…`) but publishes no event. Returned as `Failed to load plugin <path>: <error>`.
   * `since` is a `logs().length` taken earlier, to look only at what came after.
   */
  loggedPluginLoadErrors(since = 0): string[] {
    return this.logs()
      .slice(since)
      .split('\n')
      .filter((l) => l.includes('message="failed to load plugin"'))
      .map((l) => {
        const p = /\bpath=(\S+)/.exec(l)?.[1] ?? '?';
        const err = /\berror=("(?:[^"\\]|\\.)*"|\S+)/.exec(l)?.[1] ?? '?';
        return `Failed to load plugin ${p}: ${err.replace(/^"|"$/g, '')}`;
      });
  }

  /** OpenCode's own log files (`$XDG_DATA_HOME/opencode/log/*.log`), concatenated. */
  logs(): string {
    const dir = path.join(this.xdg.data, 'opencode', 'log');
    if (!fs.existsSync(dir)) return '';
    return fs
      .readdirSync(dir)
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
  }

  /**
   * Processes still alive that were started (directly or not) by this harness: those carrying its marker in
   * their environment, and those whose working directory is inside its temp root. The second catches a PTY's
   * processes, which get a fixed environment (no marker) but run in the project or another dir of the root.
   */
  leftoverProcesses(): MarkedProcess[] {
    return findMarkedProcesses(this.id, this.root);
  }

  /** Ends every process this harness started (and anything carrying its marker), then removes the temp root. */
  async dispose(): Promise<{ killed: string[] }> {
    if (this.disposed) return { killed: [] };
    this.disposed = true;
    allHarnesses.delete(this);
    const killed: string[] = [];
    await Promise.all(this.recorders.map((r) => r.stop()));
    for (const t of this.started) {
      if (t.isAlive()) {
        killed.push(t.label);
        await endTracked(t, { graceMs: 2_000 });
      }
    }
    for (const p of killMarkedProcesses(this.id, this.root)) killed.push(`marked pid ${p.pid}: ${p.cmdline}`);
    if (killed.length) log(this.label, `dispose killed: ${killed.join('; ')}`);
    if (!(this.opts.keep || process.env.OPENCODE_E2E_KEEP)) fs.rmSync(this.root, { recursive: true, force: true });
    return { killed };
  }
}

const allHarnesses = new Set<OpencodeHarness>();

/** Disposes every harness not yet disposed, ends every tracked process, closes every MockModel. */
export async function disposeAllHarnesses(): Promise<void> {
  for (const h of [...allHarnesses]) await h.dispose();
  const ended = await killAllTracked();
  if (ended.length) log('cleanup', `killed tracked processes: ${ended.join(', ')}`);
  await closeAllMockModels();
}

/**
 * Call once at the top of a test file: `afterAll` disposes every harness (recorders stopped, processes
 * ended, marked leftovers killed, temp dirs removed) and closes every MockModel, even after a failure.
 */
export function useHarnessCleanup(): void {
  afterAll(async () => {
    await disposeAllHarnesses();
  }, 30_000);
}

async function waitForOutput(cond: () => boolean, timeoutMs: number, t: Tracked, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (!t.isAlive()) throw new Error(`opencode serve exited before listening:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`opencode serve not listening after ${timeoutMs} ms:\n${output()}`);
    await sleep(50);
  }
}

async function waitForOk(url: string, timeoutMs: number, t: Tracked, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr = '';
  while (Date.now() < deadline) {
    if (!t.isAlive()) throw new Error(`opencode serve exited before ${url} answered:\n${output()}`);
    try {
      const res = await fetch(url, {
        signal: AbortSignal.timeout(Math.max(1, Math.min(30_000, deadline - Date.now()))),
      });
      await res.arrayBuffer();
      if (res.ok) return;
      lastErr = `HTTP ${res.status}`;
    } catch (e) {
      lastErr = (e as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`opencode serve: ${url} not OK after ${timeoutMs} ms (${lastErr}):\n${output()}`);
}
