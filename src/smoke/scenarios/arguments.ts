import type { RawRead, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual } from '../expect.js';
import { ended } from '../harness.js';
import type { Scenario } from '../scenario.js';

/** Every one of these must reach the program byte for byte: no expansion, no splitting, no quoting left over. */
export const HOSTILE_ARGS: readonly string[] = [
  "'",
  '"',
  "it's",
  "'\\''",
  '$(id)',
  '`id`',
  '${HOME}',
  '$HOME',
  '$0 $1 $@',
  '*',
  '/*',
  '?',
  '[!a]*',
  '~',
  '~root',
  'a\nb',
  'line1\n\nline3\n',
  '\t tab and spaces  ',
  '',
  ' ',
  '-n',
  '--',
  '-e \\x41',
  '; rm -rf /nonexistent-local-pty-smoke',
  '&& echo pwned',
  '| cat',
  '> /nonexistent-local-pty-smoke',
  '\\',
  '\\n',
  '%s %d %%',
  'é€日本 🙂',
  '\u00a0nbsp',
  '\r carriage',
  '\x1b[31mred\x1b[0m',
  '!!',
  '#not a comment',
];

export const argumentsScenario: Scenario = {
  name: 'arguments',
  summary:
    "printf '%s\\0' of hostile arguments (quotes, $(id), backticks, globs, newlines, non-ASCII) comes back byte-exact",
  async run(h) {
    const { session } = await h.session('ses_smoke_args');
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'printf',
      args: ['%s\\0', ...HOSTILE_ARGS],
      description: 'argument echo',
    });
    expectEqual(pty.args, ['%s\\0', ...HOSTILE_ARGS], 'args as pty_spawn reports them');
    const end = await ended(session, pty.id);
    expectEqual([end.status, end.exitCode], ['exited', 0], 'printf (status, exit code)');
    const raw = await session.call<RawRead>('pty_read', { id: pty.id, raw: true, limit: 2_000 });
    const fields = raw.text.split('\0');
    expectEqual(fields.pop(), '', 'text after the last NUL');
    expectEqual(fields, [...HOSTILE_ARGS], 'arguments as printf received them');
  },
};
