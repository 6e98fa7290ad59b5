/**
 * The built plugin (dist/index.js) loads in the real OpenCode both ways a user can install it, and offers the
 * five pty_* tools to the model. Skipped until `npm run build` has produced dist/index.js
 * (`npm run test:e2e` builds first).
 */
import { MockModel, text, toolCall } from './mock-model.js';
import { builtPluginAvailable, localPtyViaConfigKey, localPtyViaPluginsDir, OpencodeHarness, useHarnessCleanup, type HarnessOptions } from './opencode-harness.js';

useHarnessCleanup();

const PTY_TOOLS = ['pty_kill', 'pty_list', 'pty_read', 'pty_spawn', 'pty_write'];
const describeBuilt = builtPluginAvailable() ? describe : describe.skip;

describeBuilt('built plugin loads in OpenCode', () => {
  const ways: Array<[string, () => Partial<HarnessOptions>]> = [
    ['"plugin" config key (file:// package dir, via exports)', localPtyViaConfigKey],
    ['plugins/ dir shim re-exporting LocalPtyPlugin', localPtyViaPluginsDir],
  ];

  it.each(ways)('via %s: no load error, the five pty_* tools are offered, pty_list runs', async (_name, how) => {
    const model = await MockModel.start({ script: [toolCall('pty_list', {}, 'call_list'), text('ok')] });
    try {
      const h = await OpencodeHarness.create({ model, label: 'local-pty-loading', ...how() });
      const server = await h.serve(); // throws on any plugin load error
      const { data: session } = await server.client.session.create({}, { throwOnError: true });
      await server.client.session.prompt({ sessionID: session.id, parts: [{ type: 'text', text: 'list ptys' }] }, { throwOnError: true });

      const offered = model.modelRequests[0]!.toolNames;
      expect(offered.filter((n) => n.startsWith('pty_'))).toEqual(PTY_TOOLS);
      for (const name of PTY_TOOLS) {
        const t = model.modelRequests[0]!.body.tools!.find((x) => x.function.name === name)!;
        expect(t.function.description?.length).toBeGreaterThan(0);
        expect(t.function.parameters).toMatchObject({ type: 'object' });
      }
      expect(model.toolResult('call_list')).toBeDefined();
      if (!process.env.OPENCODE_E2E_QUIET) {
        const spawnTool = model.modelRequests[0]!.body.tools!.find((x) => x.function.name === 'pty_spawn')!;
        process.stdout.write(`[e2e observed] pty_spawn parameters as offered: ${JSON.stringify(spawnTool.function.parameters)}\n`);
        process.stdout.write(`[e2e observed] pty_list result as the model sees it: ${JSON.stringify(model.toolResult('call_list'))}\n`);
      }

      await server.client.session.delete({ sessionID: session.id }, { throwOnError: true });
      const stopped = await server.stop();
      expect(stopped.disposeError).toBeUndefined();
      expect(h.leftoverProcesses()).toEqual([]);
      await h.dispose();
    } finally {
      await model.close();
    }
  });
});
