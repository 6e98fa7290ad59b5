/**
 * Smoke test of the e2e harness with a throw-away probe plugin (no dependency on the plugin under development).
 * Proves: tool offered to the model, tool called, tool result shown to the model (opencode run); plugin loading
 * from `plugins/` and from the `plugin` config key (package dir via `exports`); an `opencode serve` round trip
 * with the v2 SDK, the `permission.asked` flow, `noReply` prompts, `session.deleted`, and stopping the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MockModel, text, toolCall } from './mock-model.js';
import { OpencodeHarness, REPO_ROOT, timed, useHarnessCleanup } from './opencode-harness.js';
import { probePluginSource, readProbeLog, waitForProbe } from './probe-plugin.js';
import { sleep } from '../../src/testkit/waits.js';

useHarnessCleanup();

const show = (label: string, value: unknown): void => {
  if (process.env.OPENCODE_E2E_QUIET) return;
  process.stdout.write(`[e2e observed] ${label}: ${JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ')}\n`);
};

describe('e2e harness (opencode run)', () => {
  let model: MockModel;
  afterEach(async () => {
    await model?.close();
  });

  it('offers a plugins/ tool to the model, runs it, and shows the model its result; tool errors and auto-rejected asks too', async () => {
    model = await MockModel.start({
      script: [
        toolCall('echo_probe', {}, 'call_echo'),
        toolCall('fail_probe', {}, 'call_fail'),
        toolCall('ask_probe', {}, 'call_ask'),
        text('all done'),
      ],
    });
    const h = await OpencodeHarness.create({ model, label: 'run-plugins-dir', permission: { bash: 'ask' } });
    const probeLog = path.join(h.root, 'probe.jsonl');
    // named AND default export of the same function (like LocalPtyPlugin + default): initialised once?
    h.writePluginFile(
      'probe.js',
      probePluginSource(probeLog, 'ProbePlugin', { alsoDefault: true, disposeDelayMs: 1_000 }),
    );

    h.writePluginFile(
      'thrower.js',
      'export const Thrower = async () => { throw new Error("init failed on purpose"); };\n',
    );
    const run = await h.runOnce('please call the probe');
    show('run.pluginLoadErrors', run.pluginLoadErrors);
    expect(run.pluginLoadErrors).toEqual([expect.stringMatching(/plugins\/thrower\.js: init failed on purpose$/)]);
    if (run.code !== 0)
      show('run output', {
        stdout: run.stdout.slice(-3000),
        stderr: run.stderr.slice(-3000),
        logs: h.logs().slice(-3000),
      });
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(0);

    // title request: no tools, does not consume the script
    expect(model.titleRequests.length).toBeGreaterThanOrEqual(1);
    const first = model.modelRequests[0]!;
    show('tools offered', first.toolNames);
    expect(first.toolNames).toContain('echo_probe');
    expect(first.toolNames).toEqual([...first.toolNames].sort()); // OpenCode sorts tools by name
    const offered = first.body.tools!.find((t) => t.function.name === 'echo_probe')!;
    show('echo_probe as offered', offered);
    expect(first.userTexts.join('\n')).toContain('please call the probe');

    // echo -> fail -> ask; the auto-rejected ask ENDS the turn: no 4th request, 'all done' stays queued
    expect(model.modelRequests).toHaveLength(3);
    expect(model.pending).toBe(1);
    expect(model.modelRequests.some((r) => r.unscripted)).toBe(false);
    const ok = model.toolResult('call_echo');
    expect(ok).toMatch(/^probe-ok ses_/);

    const failed = model.toolResult('call_fail');
    show('thrown tool error as the model sees it', failed);
    expect(failed).toBe('probe failure: boom'); // the thrown message, verbatim
    expect(model.toolResult('call_ask')).toBeUndefined();

    const toolEvents = run.events.filter((e) => e.type === 'tool_use');
    show(
      'run --format json tool_use states',
      toolEvents.map((e) => (e.part as { state: unknown }).state),
    );
    show(
      'run --format json event types',
      run.events.map((e) => e.type),
    );
    expect(toolEvents).toHaveLength(3);

    const entries = readProbeLog(probeLog);
    show(
      'probe init',
      entries.filter((e) => e.kind === 'init'),
    );
    show(
      'probe execute ctx',
      entries.find((e) => e.kind === 'execute'),
    );
    show(
      'probe asked',
      entries.filter((e) => e.kind === 'asked'),
    );
    show('probe dispose count', entries.filter((e) => e.kind === 'dispose').length);
    show('event types seen by the plugin', [...new Set(entries.filter((e) => e.kind === 'event').map((e) => e.type))]);
    expect(entries.filter((e) => e.kind === 'init')).toHaveLength(1);
    expect(entries.filter((e) => e.kind === 'dispose')).toHaveLength(1); // `opencode run` disposes at exit…
    expect(entries.filter((e) => e.kind === 'dispose-done')).toHaveLength(1); // …and awaits the hook
    expect(entries.find((e) => e.kind === 'asked')?.outcome).toBe('rejected');
    expect(h.leftoverProcesses()).toEqual([]);
    await h.dispose();
  });

  it('loads a package dir from the `plugin` config key (via exports) and `--auto` approves asks', async () => {
    model = await MockModel.start({
      script: [toolCall('ask_probe', {}, 'call_ask'), toolCall('big_probe', {}, 'call_big'), text('done')],
    });
    // a package dir outside the project, loaded as file:///abs/dir through its package.json `exports`
    const pkgRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-e2e-probe-pkg-'));
    const pkgDir = path.join(pkgRoot, 'probe-pkg');
    const probeLog = path.join(pkgRoot, 'probe.jsonl');
    fs.mkdirSync(path.join(pkgDir, 'dist'), { recursive: true });
    fs.writeFileSync(
      path.join(pkgDir, 'package.json'),
      JSON.stringify({
        name: 'probe-pkg',
        version: '0.0.0',
        type: 'module',
        main: './dist/index.js',
        exports: { '.': { default: './dist/index.js' } },
      }),
    );
    // named AND default export of the same function, like the real plugin (LocalPtyPlugin + default)
    fs.writeFileSync(
      path.join(pkgDir, 'dist', 'index.js'),
      probePluginSource(probeLog, 'ProbePkgPlugin', { alsoDefault: true }),
    );

    const h = await OpencodeHarness.create({
      model,
      label: 'run-plugin-key',
      permission: { bash: 'ask' },
      plugin: [pathToFileURL(pkgDir).href],
      // and one more plugin in the project's .opencode/plugins/ (a second config dir)
      projectPluginFiles: {
        'project-probe.js':
          'export const ProjectProbe = async () => ({ tool: { project_probe: { description: "p", args: {}, async execute() { return "project-ok"; } } } });\n',
      },
    });
    try {
      const run = await h.runOnce('ask for permission', { auto: true });
      expect(run.code).toBe(0);
      expect(model.modelRequests[0]!.toolNames).toContain('ask_probe');
      expect(model.modelRequests[0]!.toolNames).toContain('project_probe');
      expect(model.toolResult('call_ask')).toBe('ask-allowed');
      const big = model.toolResult('call_big')!;
      show('150 kB tool output as the model sees it', {
        length: big.length,
        head: big.slice(0, 80),
        tail: big.slice(-400),
      });
      const inits = readProbeLog(probeLog).filter((e) => e.kind === 'init');
      show('inits with named+default export of one function', inits.length);
      expect(inits).toHaveLength(1);
    } finally {
      await h.dispose();
      fs.rmSync(pkgRoot, { recursive: true, force: true });
    }
  });
});

describe('e2e harness (opencode serve + SDK v2)', () => {
  let model: MockModel;
  afterAll(async () => {
    await model?.close();
  });

  it('round trip: session, prompt, tool call, permission.asked/reply, noReply, session.deleted, stop', async () => {
    model = await MockModel.start({
      script: [toolCall('echo_probe', {}, 'call_s_echo'), text('echoed')],
    });
    const h = await OpencodeHarness.create({ model, label: 'serve', permission: { bash: 'ask' } });
    const probeLog = path.join(h.root, 'probe.jsonl');
    h.writePluginFile('probe.js', probePluginSource(probeLog, 'ProbePlugin', { disposeDelayMs: 1_000 }));
    const server = await timed(h.label, 'serve() until ready', () => h.serve());
    const { client, events } = server;

    const created = await timed(h.label, 'session.create', () =>
      client.session.create({ title: 'e2e' }, { throwOnError: true }),
    );
    const sessionID = created.data.id;
    show('session.create data keys', Object.keys(created.data).sort());

    // 1. synchronous prompt: resolves when the turn is over
    const prompted = await timed(h.label, 'session.prompt (tool call + final text)', () =>
      client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'call echo' }] }, { throwOnError: true }),
    );
    show('session.prompt result info keys', Object.keys(prompted.data.info).sort());
    expect(model.toolResult('call_s_echo')).toBe(`probe-ok ${sessionID}`);
    show('serve: tools offered', model.modelRequests[0]!.toolNames);
    show('serve: toolIds (GET /experimental/tool/ids)', server.toolIds);
    expect([...server.toolIds].sort()).toEqual(expect.arrayContaining(['ask_probe', 'echo_probe']));
    show(
      'serve: plugin init input',
      readProbeLog(probeLog).find((e) => e.kind === 'init'),
    );
    expect(model.titleRequests).toHaveLength(0); // session created with a title: no title generation
    await events.waitForType('session.idle', (e) => e.properties.sessionID === sessionID);

    // 2. permission.asked -> reply once (promptAsync returns at once; the turn runs in the background)
    model.enqueue(toolCall('ask_probe', {}, 'call_s_ask1'), text('asked once'));
    const idleBefore = events.ofType('session.idle').length;
    await timed(h.label, 'session.promptAsync', () =>
      client.session.promptAsync({ sessionID, parts: [{ type: 'text', text: 'ask me' }] }, { throwOnError: true }),
    );
    const asked = await timed(h.label, 'wait permission.asked', () =>
      events.waitForType('permission.asked', (e) => e.properties.sessionID === sessionID),
    );
    show('permission.asked event (SSE)', asked);
    expect(asked.properties.permission).toBe('bash');
    expect(asked.properties.patterns).toEqual(['x']);
    const pending = await client.permission.list({}, { throwOnError: true });
    show('permission.list while pending', pending.data);
    await timed(h.label, 'permission.reply once', () =>
      client.permission.reply({ requestID: asked.properties.id, reply: 'once' }, { throwOnError: true }),
    );
    const replied = await events.waitForType(
      'permission.replied',
      (e) => e.properties.requestID === asked.properties.id,
    );
    show('permission.replied event (SSE)', replied);
    await events.waitFor(
      (e) => e.type === 'session.idle' && events.ofType('session.idle').length > idleBefore,
      30_000,
      'session.idle after ask',
    );
    expect(model.toolResult('call_s_ask1')).toBe('ask-allowed');

    // 3. permission.asked -> reject: how the rejection reaches the model
    model.enqueue(toolCall('ask_probe', {}, 'call_s_ask2'), text('asked twice'));
    await client.session.promptAsync(
      { sessionID, parts: [{ type: 'text', text: 'ask me again' }] },
      { throwOnError: true },
    );
    const asked2 = await events.waitForType('permission.asked', (e) => e.properties.id !== asked.properties.id);
    await client.permission.reply({ requestID: asked2.properties.id, reply: 'reject' }, { throwOnError: true });
    // a rejected ask ends the turn: the model is NOT called with the result (it sees it on the next prompt)
    await events.waitFor(
      () => events.ofType('session.idle').length >= idleBefore + 2,
      30_000,
      'session.idle after reject',
    );
    await waitForProbe(probeLog, (e) => e.kind === 'asked' && e.outcome === 'rejected');
    show(
      'probe: ctx.ask rejection error',
      readProbeLog(probeLog).find((e) => e.kind === 'asked' && e.outcome === 'rejected'),
    );
    show(
      'session.error events so far',
      events.ofType('session.error').map((e) => e.properties),
    );
    expect(model.pending).toBe(1); // 'asked twice' was not consumed
    expect(model.toolResult('call_s_ask2')).toBeUndefined();
    model.enqueue(); // keep queue mode

    // 4. noReply: the message is stored, no model request is made
    const requestsBefore = model.requests.length;
    const noReply = await timed(h.label, 'session.prompt noReply', () =>
      client.session.prompt(
        {
          sessionID,
          noReply: true,
          parts: [{ type: 'text', text: 'NOTE-FROM-PLUGIN: pty 1 exited', synthetic: true }],
        },
        { throwOnError: true },
      ),
    );
    show('noReply prompt result', { info: noReply.data?.info, parts: noReply.data?.parts?.map((p) => p.type) });
    await sleep(1_500);
    expect(model.requests.length).toBe(requestsBefore);
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'next' }] }, { throwOnError: true });
    const after = model.modelRequests.at(-1)!;
    expect(after.answeredWith).toEqual(text('asked twice'));
    show('user texts of the next model request', after.userTexts.slice(-3));
    expect(after.userTexts.join('\n')).toContain('NOTE-FROM-PLUGIN');
    show('rejected ask as the model sees it (on the next prompt)', model.toolResult('call_s_ask2'));
    expect(model.toolResult('call_s_ask2')).toBeDefined();

    // 5. session.deleted: SSE and the plugin's event hook
    await timed(h.label, 'session.delete', () => client.session.delete({ sessionID }, { throwOnError: true }));
    const deleted = await events.waitForType('session.deleted', (e) => e.properties.sessionID === sessionID);
    show('session.deleted event (SSE) properties keys', Object.keys(deleted.properties).sort());
    const hookDeleted = await waitForProbe(probeLog, (e) => e.kind === 'event' && e.type === 'session.deleted');
    show(
      'session.deleted as the plugin event hook sees it (properties keys)',
      Object.keys(hookDeleted.properties as object).sort(),
    );
    show('event types seen by plugin hook', [
      ...new Set(
        readProbeLog(probeLog)
          .filter((e) => e.kind === 'event')
          .map((e) => e.type),
      ),
    ]);
    const hookAsked = readProbeLog(probeLog).find((e) => e.kind === 'event' && e.type === 'permission.asked');
    show('permission.asked as the plugin event hook sees it', hookAsked?.properties);

    // 6. stop: instance.dispose (runs plugin dispose hooks) then SIGTERM
    const stopped = await server.stop();
    show('stop', stopped);
    expect(stopped.forced).toBe(false);
    const entries = readProbeLog(probeLog);
    expect(entries.filter((e) => e.kind === 'init')).toHaveLength(1);
    // instance.dispose answers at once; OpenCode awaits the async dispose hook (1 s here) before it emits
    // server.instance.disposed, and stop() waits for that event
    expect(entries.filter((e) => e.kind === 'dispose-done')).toHaveLength(1);
    expect(stopped.disposeMs).toBeGreaterThanOrEqual(1_000);
    expect(h.leftoverProcesses()).toEqual([]);
    await h.dispose();
  });
});

describe('e2e harness (plugin load failures)', () => {
  it("serve() fails fast with OpenCode's own message when a plugin cannot load (opencode run would skip it silently)", async () => {
    const model = await MockModel.start();
    try {
      const h = await OpencodeHarness.create({
        model,
        label: 'serve-broken-plugin',
        pluginFiles: {
          'bad-import.js': 'import { nope } from "./does-not-exist.js";\nexport const BadImport = async () => ({});\n',
          'thrower.js': 'export const Thrower = async () => { throw new Error("init failed on purpose"); };\n',
          // every export must be a plugin function (or {server: fn}); one constant sinks the whole module
          'with-constant.js': 'export const WithConstant = async () => ({});\nexport const VERSION = "1.0.0";\n',
        },
      });
      const err = await h.serve().then(
        () => undefined,
        (e: Error) => e,
      );
      show('serve() error for broken plugins', err?.message);
      expect(err?.message).toContain('plugins/bad-import.js');
      expect(err?.message).toContain('init failed on purpose');
      expect(err?.message).toMatch(/plugins\/with-constant\.js: .*Plugin export is not a function/);
      expect(h.leftoverProcesses()).toEqual([]);
      await h.dispose();
    } finally {
      await model.close();
    }
  });
});

describe('e2e harness (stop without dispose, leftovers)', () => {
  let model: MockModel;
  afterAll(async () => {
    await model?.close();
  });

  it('SIGTERM alone runs no plugin dispose hook; a detached child survives and is found by the marker scan', async () => {
    model = await MockModel.start({ script: [toolCall('spawn_probe', {}, 'call_spawn'), text('spawned')] });
    const h = await OpencodeHarness.create({ model, label: 'serve-sigterm' });
    const probeLog = path.join(h.root, 'probe.jsonl');
    h.writePluginFile('probe.js', probePluginSource(probeLog));
    const server = await h.serve();
    const { data: session } = await server.client.session.create({}, { throwOnError: true });
    await server.client.session.prompt(
      { sessionID: session.id, parts: [{ type: 'text', text: 'spawn' }] },
      { throwOnError: true },
    );
    show('serve, session.create without title: title requests', model.titleRequests.length);
    const pid = Number(/spawned (\d+)/.exec(model.toolResult('call_spawn') ?? '')?.[1]);
    expect(pid).toBeGreaterThan(0);

    const stopped = await server.stop({ disposeInstance: false });
    show('stop (SIGTERM only)', stopped);
    const entries = readProbeLog(probeLog);
    show('probe inits / disposes after SIGTERM only', {
      inits: entries.filter((e) => e.kind === 'init').length,
      disposes: entries.filter((e) => e.kind === 'dispose').length,
    });
    expect(entries.filter((e) => e.kind === 'dispose')).toHaveLength(0);

    const left = h.leftoverProcesses();
    show('leftover processes after SIGTERM', left);
    expect(left.map((p) => p.pid)).toContain(pid);
    const { killed } = await h.dispose();
    expect(killed.join('\n')).toContain(`marked pid ${pid}`);
    expect(h.leftoverProcesses()).toEqual([]);
  });
});

describe('e2e harness (real @opencode-ai/plugin, zod args)', () => {
  let model: MockModel;
  afterAll(async () => {
    await model?.close();
  });

  it("tool() with the host zod (tool.schema) and with this repo's own zod: the schema offered, and no validation", async () => {
    model = await MockModel.start({
      script: [
        toolCall('zod_host_probe', { text: 'ab', n: 2 }, 'call_host_ok'),
        toolCall('zod_own_probe', { text: 'cd', n: 3 }, 'call_own_ok'),
        toolCall('zod_own_probe', { text: 5 }, 'call_own_bad'),
        toolCall('zod_own_probe', { text: 'x', n: 7 }, 'call_own_range'),
        toolCall('zod_host_probe', { text: 'x', n: 7 }, 'call_host_range'),
        toolCall('zod_host_probe', { text: 'x' }, 'call_host_default'),
        text('done'),
      ],
    });
    const ownZod = pathToFileURL(path.join(REPO_ROOT, 'node_modules', 'zod', 'index.js')).href;
    const h = await timed('real-plugin-pkg', 'create harness (real package)', () =>
      OpencodeHarness.create({
        model,
        label: 'real-plugin-pkg',
        pluginPackage: 'real',
        pluginFiles: {
          'zod-probe.js': `import { tool } from "@opencode-ai/plugin";
import { z } from ${JSON.stringify(ownZod)};
export const ZodProbe = async () => ({
  tool: {
    zod_host_probe: tool({
      description: "repeat text n times (host zod)",
      args: { text: tool.schema.string().describe("the text"), n: tool.schema.number().int().min(1).max(3).default(1) },
      async execute(args) { return "host:" + args.text.repeat(args.n); },
    }),
    zod_host_rich: tool({
      description: "rich schema (host zod)",
      args: { id: tool.schema.string().regex(/^pty_[0-9a-f]{8}$/).describe("id"), list: tool.schema.array(tool.schema.string()).max(3).optional(), mode: tool.schema.enum(["a", "b"]).optional(), s: tool.schema.string().min(1).max(5).optional() },
      async execute() { return "rich"; },
    }),
    zod_own_rich: tool({
      description: "rich schema (own zod)",
      args: { id: z.string().regex(/^pty_[0-9a-f]{8}$/).describe("id"), list: z.array(z.string()).max(3).optional(), mode: z.enum(["a", "b"]).optional(), s: z.string().min(1).max(5).optional() },
      async execute() { return "rich"; },
    }),
    zod_own_probe: tool({
      description: "repeat text n times (own zod)",
      args: { text: z.string().describe("the text"), n: z.number().int().min(1).max(3).default(1) },
      async execute(args) { return "own:" + args.text.repeat(args.n); },
    }),
  },
});
`,
        },
      }),
    );
    const run = await h.runOnce('zod please');
    if (run.code !== 0) show('run output', { stdout: run.stdout.slice(-2000), stderr: run.stderr.slice(-2000) });
    expect(run.code).toBe(0);
    const req = model.modelRequests[0]!;
    const schemaOf = (name: string) => req.body.tools!.find((t) => t.function.name === name)?.function.parameters;
    show('zod_host_probe parameters as offered', schemaOf('zod_host_probe'));
    show('zod_own_probe parameters as offered', schemaOf('zod_own_probe'));
    show('zod_host_rich parameters as offered', schemaOf('zod_host_rich'));
    show('zod_own_rich parameters as offered', schemaOf('zod_own_rich'));
    expect(model.toolResult('call_host_ok')).toBe('host:abab');
    expect(model.toolResult('call_own_ok')).toBe('own:cdcdcd');
    show('own zod, invalid type (text: 5) as the model sees it', model.toolResult('call_own_bad'));
    show('own zod, out of range (n: 7) as the model sees it', model.toolResult('call_own_range'));
    show('host zod, out of range (n: 7) as the model sees it', model.toolResult('call_host_range'));
    show('host zod, n omitted (default 1) as the model sees it', model.toolResult('call_host_default'));
    show('model requests / pending', [model.modelRequests.length, model.pending]);
    // Pinned 1.18.33 behaviour (see README): the host's zod keeps every check in the offered JSON Schema…
    expect(schemaOf('zod_host_rich')).toMatchObject({
      properties: { id: { pattern: '^pty_[0-9a-f]{8}$' }, list: { maxItems: 3 }, s: { minLength: 1, maxLength: 5 } },
    });
    // …and so does this repo's zod since it is pinned to the host's version (4.1.8). With zod 4.6.7 here,
    // `pattern`, `maxItems`, `minLength`/`maxLength` vanished and `id` was offered as `{description, type}` only.
    const ownRich = schemaOf('zod_own_rich') as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(ownRich.properties.id).toEqual({ description: 'id', type: 'string', pattern: '^pty_[0-9a-f]{8}$' });
    expect(ownRich.properties.list).toEqual({ type: 'array', items: { type: 'string' }, maxItems: 3 });
    expect(ownRich.properties.s).toEqual({ type: 'string', minLength: 1, maxLength: 5 });
    expect(ownRich.properties.mode).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(ownRich.required).toEqual(['id']);
    expect(schemaOf('zod_own_probe')).toEqual(schemaOf('zod_host_probe'));
    // …and OpenCode validates nothing: execute() gets the model's raw JSON (no types, bounds or defaults)
    expect(model.toolResult('call_own_bad')).toContain('args.text.repeat is not a function');
    expect(model.toolResult('call_own_range')).toBe('own:xxxxxxx');
    expect(model.toolResult('call_host_range')).toBe('host:xxxxxxx');
    expect(model.toolResult('call_host_default')).toBe('host:');
    await h.dispose();
  });
});
