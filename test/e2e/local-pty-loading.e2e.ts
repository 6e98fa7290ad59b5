/**
 * The built plugin (dist/index.js) loads in the real OpenCode every way a user can install it, is initialised
 * once, offers the five pty_* tools to the model with exactly the JSON schemas our zod describes (bounds
 * included), and runs. Skipped until `npm run build` has produced dist/index.js (`npm run test:e2e` builds first).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PTY_TOOLS } from '../../src/tools/definitions.js';
import { MockModel, text, toolCall } from './mock-model.js';
import {
  builtPluginAvailable,
  localPtyViaConfigKey,
  localPtyViaPluginsDir,
  localPtyViaProjectPluginsDir,
  OPENCODE_BIN,
  OpencodeHarness,
  REPO_ROOT,
  useHarnessCleanup,
  type HarnessOptions,
} from './opencode-harness.js';

useHarnessCleanup();

const PTY_TOOL_NAMES = ['pty_kill', 'pty_list', 'pty_read', 'pty_spawn', 'pty_write'];
const describeBuilt = builtPluginAvailable() ? describe : describe.skip;

type JsonSchema = { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] };

describeBuilt('built plugin loads in OpenCode', () => {
  const ways: Array<[string, () => Partial<HarnessOptions>]> = [
    ['"plugin" config key (file:// package dir, via exports)', localPtyViaConfigKey],
    ['global plugins/ dir shim re-exporting LocalPtyPlugin', localPtyViaPluginsDir],
    ['project .opencode/plugins/ dir shim', localPtyViaProjectPluginsDir],
  ];

  it.each(ways)(
    'via %s: no load error, initialised once, the five pty_* tools offered with their schemas, pty_list runs',
    async (_name, how) => {
      const model = await MockModel.start({ script: [toolCall('pty_list', {}, 'call_list'), text('ok')] });
      try {
        const h = await OpencodeHarness.create({ model, label: 'local-pty-loading', ...how() });
        const server = await h.serve(); // throws on any plugin load error
        // initialised once (a second initialisation registers every pty_* tool again: seen with a module exporting
        // two distinct wrapper functions), in the plugin's own order; the model is offered them sorted by name
        expect(server.toolIds.filter((id) => id.startsWith('pty_'))).toEqual(PTY_TOOLS.map((t) => t.name));
        expect(PTY_TOOLS.map((t) => t.name)).toEqual(['pty_spawn', 'pty_write', 'pty_read', 'pty_list', 'pty_kill']);
        const { data: session } = await server.client.session.create({}, { throwOnError: true });
        await server.client.session.prompt(
          { sessionID: session.id, parts: [{ type: 'text', text: 'list ptys' }] },
          { throwOnError: true },
        );

        const offered = model.modelRequests[0]!;
        expect(offered.toolNames.filter((n) => n.startsWith('pty_'))).toEqual(PTY_TOOL_NAMES);
        for (const tool of PTY_TOOLS) {
          const t = offered.body.tools!.find((x) => x.function.name === tool.name)!;
          expect(t.function.description).toBe(tool.description);
          // exactly what our zod (pinned to the host's 4.1.8) says, checks and descriptions included
          expect(t.function.parameters).toEqual(z.toJSONSchema(z.object(tool.args), { io: 'input' }));
        }
        // the bounds, spelled out (a zod of another version than the host's lost all of these)
        const params = (name: string) =>
          offered.body.tools!.find((x) => x.function.name === name)!.function.parameters as JsonSchema;
        const spawn = params('pty_spawn');
        expect(spawn.required).toEqual(['command', 'description']);
        expect(spawn.properties).toMatchObject({
          command: { type: 'string', minLength: 1 },
          args: { type: 'array', items: { type: 'string' }, maxItems: 128 },
          title: { type: 'string', maxLength: 500 },
          description: { type: 'string', minLength: 1, maxLength: 2000 },
          timeoutSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
          notifyOnExit: { type: 'boolean' },
          rows: { type: 'integer', minimum: 1, maximum: 1000 },
          cols: { type: 'integer', minimum: 1, maximum: 1000 },
        });
        for (const name of ['pty_write', 'pty_read', 'pty_kill']) {
          expect(params(name).properties!.id).toMatchObject({ type: 'string', pattern: '^pty_[0-9a-f]{8}$' });
          expect(params(name).required).toContain('id');
        }
        expect(params('pty_write').properties!.data).toMatchObject({ type: 'string', minLength: 1 });
        expect(params('pty_write').required).toEqual(['id']);
        expect(params('pty_write').properties).toMatchObject({
          input: { type: 'array', maxItems: 256 },
          resize: {
            type: 'object',
            properties: {
              rows: { type: 'integer', minimum: 1, maximum: 1000 },
              cols: { type: 'integer', minimum: 1, maximum: 1000 },
            },
          },
        });
        expect(params('pty_read').properties!.screen).toMatchObject({ type: 'boolean' });
        expect(params('pty_read').properties).toMatchObject({
          offset: { type: 'integer', minimum: 0, maximum: 10_000 },
          limit: { type: 'integer', minimum: 1, maximum: 2_000 },
          pattern: { type: 'string', minLength: 1, maxLength: 500 },
        });
        expect(params('pty_list')).toMatchObject({ type: 'object', properties: {} });

        expect(JSON.parse(model.toolResult('call_list')!)).toEqual({ ptys: [] });
        if (!process.env.OPENCODE_E2E_QUIET) {
          process.stdout.write(`[e2e observed] pty_spawn parameters as offered: ${JSON.stringify(spawn)}\n`);
        }

        await server.client.session.delete({ sessionID: session.id }, { throwOnError: true });
        const stopped = await server.stop();
        expect(stopped.disposeError).toBeUndefined();
        expect(h.leftoverProcesses()).toEqual([]);
        await h.dispose();
      } finally {
        await model.close();
      }
    },
  );
});

describeBuilt("the native line scan in the host's own runtime", () => {
  it("loads under OpenCode's Bun (WebAssembly with SIMD) and agrees with a byte count, so Bun ingests as Node does", () => {
    // The opencode executable is Bun; BUN_BE_BUN makes it run a script as Bun would.
    const probe = [
      `import { lineScanner } from ${JSON.stringify(path.join(REPO_ROOT, 'dist', 'buffer', 'line-scan.js'))};`,
      "const bytes = Buffer.from('y\\n'.repeat(1000) + 'x'.repeat(100) + '\\n');",
      'const plain = lineScanner?.load(bytes);',
      'console.log(JSON.stringify({ bun: typeof Bun, loaded: lineScanner !== undefined, plain, lines: lineScanner?.groups(0, bytes.length).count }));',
    ].join('\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'line-scan-bun-'));
    try {
      writeFileSync(path.join(dir, 'probe.mjs'), probe);
      const out = execFileSync(OPENCODE_BIN, [path.join(dir, 'probe.mjs')], {
        env: { ...process.env, BUN_BE_BUN: '1' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
        bun: 'object',
        loaded: true,
        plain: true,
        lines: 1001,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
