import type { ListResult } from '../../protocol/tool-results.js';
import { expectEqual, expectThat } from '../expect.js';
import type { Scenario } from '../scenario.js';

const EXPECTED_TOOLS = ['pty_spawn', 'pty_write', 'pty_read', 'pty_list', 'pty_kill'];
/** Arguments each tool must take (more are allowed). */
const REQUIRED_ARGS: Readonly<Record<string, readonly string[]>> = {
  pty_spawn: ['command', 'args', 'workdir', 'description', 'timeoutSeconds', 'notifyOnExit'],
  pty_write: ['id', 'data'],
  pty_read: ['id', 'offset', 'limit', 'tail', 'pattern'],
  pty_list: [],
  pty_kill: ['id', 'cleanup'],
};

export const toolNames: Scenario = {
  name: 'tool-names',
  summary:
    'the adapter offers exactly pty_spawn, pty_write, pty_read, pty_list, pty_kill, in that order, with zod args',
  async run(h) {
    const { host, session } = await h.session('ses_smoke_names');
    expectEqual(Object.keys(host.hooks).sort(), ['dispose', 'event', 'tool'], 'the hooks the plugin returns');
    expectEqual(Object.keys(host.hooks.tool), EXPECTED_TOOLS, 'tool names in registration order');
    for (const [name, tool] of Object.entries(host.hooks.tool)) {
      expectThat(
        tool.description,
        (d) => typeof d === 'string' && d.length >= 40,
        'a description of at least 40 characters',
        `${name} description`,
      );
      for (const arg of REQUIRED_ARGS[name] ?? []) {
        const schema = tool.args[arg] as { safeParse?: unknown } | undefined;
        expectThat(
          typeof schema?.safeParse,
          (t) => t === 'function',
          'a zod schema (with safeParse)',
          `${name} argument ${arg}`,
        );
      }
    }
    expectEqual(await session.call<ListResult>('pty_list', {}), { ptys: [] }, 'pty_list of a fresh session');
  },
};
