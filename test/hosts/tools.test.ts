import {
  MAX_ARG_BYTES,
  MAX_ARGS,
  MAX_COMMAND_BYTES,
  MAX_DESCRIPTION_CHARS,
  MAX_PATH_BYTES,
  MAX_PATTERN_CHARS,
  MAX_TERMINAL_DIMENSION,
  MAX_TITLE_CHARS,
  MAX_TOTAL_ARG_BYTES,
  MAX_WRITE_BYTES,
} from '../../src/limits.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOSTS, Session, fails, useHost } from './fixtures/suite.js';

jest.setTimeout(90_000);

describe.each(HOSTS)('tools through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('registers the five tools in the order the model should learn them', () => {
    expect(ctx.host.toolNames()).toEqual(['pty_spawn', 'pty_write', 'pty_read', 'pty_list', 'pty_kill']);
  });

  it('spawns cat, writes, reads back, lists, kills, then removes it with cleanup', async () => {
    const s = new Session(ctx.host, 'ses_happy');
    const spawned = await s.spawn({ command: 'cat', title: 'echo box', description: 'echo what I type' });
    expect(spawned).toMatchObject({
      command: 'cat',
      args: [],
      title: 'echo box',
      status: 'running',
      workdir: ctx.host.projectDir,
      timedOut: false,
    });
    expect(spawned.id).toMatch(/^pty_[0-9a-f]{8}$/);
    expect(spawned.pid).toEqual(expect.any(Number));

    expect(await s.write(spawned.id, 'hello pty\\n')).toEqual({
      id: spawned.id,
      bytesWritten: 10,
      status: 'running',
      cursor: 'L1',
    });
    await s.untilOutput(spawned.id, 'hello pty');
    const read = await s.read(spawned.id);
    expect(read.lines).toEqual([{ line: 1, text: 'hello pty' }]);
    expect(read).toMatchObject({
      status: 'running',
      totalLines: 1,
      firstLine: 1,
      droppedLines: 0,
      offset: 0,
      returned: 1,
      hasMore: false,
      nextOffset: null,
    });

    const listed = await s.list();
    expect(listed.map((p) => [p.id, p.status, p.lineCount])).toEqual([[spawned.id, 'running', 1]]);

    const killed = await s.kill(spawned.id);
    expect(killed).toMatchObject({ id: spawned.id, status: 'killed', removed: false });
    expect(killed.endedAt).toEqual(expect.any(String));
    // Its output stays readable after the kill.
    expect((await s.read(spawned.id)).lines).toEqual([{ line: 1, text: 'hello pty' }]);

    const removed = await s.kill(spawned.id, true);
    expect(removed).toMatchObject({ id: spawned.id, status: 'killed', removed: true });
    expect(await s.list()).toEqual([]);
    expect(fails(await s.call('pty_read', { id: spawned.id })).code).toBe('not_found');
  });

  it('drives a python3 REPL to its natural exit', async () => {
    const s = new Session(ctx.host, 'ses_python');
    const { id } = await s.spawn({ command: 'python3', args: ['-q'], description: 'python repl' });
    await s.untilOutput(id, '>>>');
    await s.write(id, 'print(6 * 7)\\n');
    await s.untilOutput(id, /^>>> 42$/m);
    await s.write(id, 'exit()\\n');
    const ended = await s.untilStatus(id, ['exited']);
    expect(ended).toMatchObject({ status: 'exited', exitCode: 0, timedOut: false });
    const refused = fails(await s.call('pty_write', { id, data: 'x' }));
    expect(refused.code).toBe('not_running');
    expect(refused.message).toMatch(new RegExp(`^${id} has exited with exit code 0; it takes no input\\.`));
  });

  it('says in words how a PTY that takes no input ended', async () => {
    const s = new Session(ctx.host, 'ses_ended_words');
    const { id } = await s.spawn({ command: 'cat', description: 'cat' });
    await s.kill(id);
    expect(fails(await s.call('pty_write', { id, data: 'x' })).message).toMatch(
      new RegExp(`^${id} was killed with exit code 143; it takes no input\\.`),
    );
  });

  describe('bad input: a clear message, and nothing changed', () => {
    // Rows always have every column: jest-each passes a `done` callback to a test function with more
    // parameters than the row has values, and would then wait for it.
    const spawnCases: Array<[string, Record<string, unknown>, RegExp, string | undefined]> = [
      ['an unknown key', { command: 'cat', description: 'x', bogus: 1 }, /Unrecognized key.*bogus/, undefined],
      ['an empty command', { command: '', description: 'x' }, /command: must name the program to run/, undefined],
      [
        'too many args',
        { command: 'echo', description: 'x', args: Array.from({ length: MAX_ARGS + 1 }, () => 'a') },
        new RegExp(`args: at most ${MAX_ARGS} arguments`),
        undefined,
      ],
      [
        'an arg too long',
        { command: 'echo', description: 'x', args: ['a'.repeat(MAX_ARG_BYTES + 1)] },
        new RegExp(`args\\[0\\] is ${MAX_ARG_BYTES + 1} bytes; the limit is ${MAX_ARG_BYTES} bytes`),
        'limit',
      ],
      [
        'a NUL in an arg',
        { command: 'echo', description: 'x', args: ['a\0b'] },
        /args\[0\] contains a NUL byte/,
        'invalid_input',
      ],
      ['a NUL in the command', { command: 'ec\0ho', description: 'x' }, /command contains a NUL byte/, 'invalid_input'],
      [
        'timeoutSeconds 0',
        { command: 'cat', description: 'x', timeoutSeconds: 0 },
        /timeoutSeconds: must be at least 1/,
        undefined,
      ],
      [
        'timeoutSeconds 3601',
        { command: 'cat', description: 'x', timeoutSeconds: 3601 },
        /timeoutSeconds: must be at most 3600/,
        undefined,
      ],
      // (V2 hosts validate the Standard Schema themselves and word this their own way.)
      [
        'no description',
        { command: 'cat' },
        /description: (required \(string\)|Invalid input: expected string, received undefined)/,
        undefined,
      ],
      [
        'a title too long',
        { command: 'cat', description: 'x', title: 't'.repeat(MAX_TITLE_CHARS + 1) },
        new RegExp(`title: at most ${MAX_TITLE_CHARS} characters`),
        undefined,
      ],
      [
        'a description too long',
        { command: 'cat', description: 'd'.repeat(MAX_DESCRIPTION_CHARS + 1) },
        new RegExp(`description: at most ${MAX_DESCRIPTION_CHARS} characters`),
        undefined,
      ],
      [
        'a command too long',
        { command: 'c'.repeat(MAX_COMMAND_BYTES + 1), description: 'x' },
        new RegExp(`command is ${MAX_COMMAND_BYTES + 1} bytes; the limit is ${MAX_COMMAND_BYTES} bytes`),
        'limit',
      ],
      [
        'args too long together',
        {
          command: 'echo',
          description: 'x',
          args: Array.from({ length: 5 }, () => 'a'.repeat(MAX_TOTAL_ARG_BYTES / 4)),
        },
        new RegExp(
          `the arguments together are ${(MAX_TOTAL_ARG_BYTES / 4) * 5} bytes; the limit is ${MAX_TOTAL_ARG_BYTES} bytes`,
        ),
        'limit',
      ],
      [
        'a workdir path too long',
        { command: 'pwd', description: 'x', workdir: `/${'w'.repeat(MAX_PATH_BYTES)}` },
        new RegExp(`workdir is ${MAX_PATH_BYTES + 1} bytes; the limit is ${MAX_PATH_BYTES} bytes`),
        'limit',
      ],
      [
        'a workdir that does not exist',
        { command: 'pwd', description: 'x', workdir: '/nonexistent/local-pty/dir' },
        /workdir.*\/nonexistent\/local-pty\/dir/,
        undefined,
      ],
      [
        'the workdir ~',
        { command: 'pwd', description: 'x', workdir: '~' },
        /workdir \/.*\/~ does not exist \(ENOENT\)\. A leading ~ is not expanded \(no shell reads workdir\): give the absolute path/,
        'invalid_input',
      ],
      // A command the PTY could not run is refused before anyone is asked (it exited 127 from a started PTY before).
      [
        'a command on no PATH directory',
        { command: 'no-such-command-local-pty', description: 'x' },
        /command not found: "no-such-command-local-pty" is in none of the PTY's PATH directories \(\/usr\/local\/bin:\/usr\/bin:\/bin\)/,
        'spawn_failed',
      ],
      // A command line in command is told where its arguments go (it was told to try "./echo hi").
      [
        'a command line in command',
        { command: 'echo hi', description: 'x' },
        /command names the program alone, without arguments .*: give command "echo", args \["hi"\], each argument its own string; or, to run it as a shell line .*command "bash", args \["-c", "echo hi"\]\. Nothing was started\.$/,
        'spawn_failed',
      ],
      ['the command "."', { command: '.', description: 'x' }, /"\." names a directory, not a program/, 'spawn_failed'],
      ['rows 0', { command: 'cat', description: 'x', rows: 0 }, /rows: must be at least 1/, undefined],
      [
        'cols too many',
        { command: 'cat', description: 'x', cols: MAX_TERMINAL_DIMENSION + 1 },
        new RegExp(`cols: must be at most ${MAX_TERMINAL_DIMENSION}`),
        undefined,
      ],
    ];

    it.each(spawnCases)('pty_spawn with %s', async (_case, args, message, code) => {
      const s = new Session(ctx.host, 'ses_bad_spawn');
      const before = await s.list();
      const failed = fails(await s.call('pty_spawn', args));
      expect(failed.message).toMatch(message);
      if (code) expect(failed.code).toBe(code);
      expect(ctx.host.permissionLog).toHaveLength(0);
      expect(await s.list()).toEqual(before);
    });

    // A path is looked at only once the spawn is allowed (whether a file exists is not told before): then refused.
    it.each([
      [
        'a relative path to nothing',
        './no-such-script.sh',
        /"\.\/no-such-script\.sh" cannot run: no such file \(looked for in \/.*\)\. Nothing was started/,
      ],
      ['a file that is not executable', '/etc/passwd', /"\/etc\/passwd" cannot run: it is not executable/],
      ['a directory', '/tmp', /"\/tmp" cannot run: it is not a file/],
      // The wrapper said "./badshebang: No such file or directory", of a file that is there.
      [
        'a script whose #! interpreter does not exist',
        './badshebang',
        /"\.\/badshebang" \(\/.*\/badshebang\) cannot run: its #! line names the interpreter "\/nonexistent\/interp", which cannot run: no such file\. Fix the #! line/,
      ],
    ])('pty_spawn of %s is refused after the prompt, and nothing starts', async (_case, command, message) => {
      writeFileSync(join(ctx.host.projectDir, 'badshebang'), '#!/nonexistent/interp\necho hi\n', { mode: 0o755 });
      const s = new Session(ctx.host, 'ses_bad_path');
      const before = await s.list();
      const failed = fails(await s.call('pty_spawn', { command, description: 'x' }));
      expect(failed).toMatchObject({ code: 'spawn_failed', message: expect.stringMatching(message) });
      expect(ctx.host.permissionLog).toHaveLength(1);
      expect(await s.list()).toEqual(before);
    });

    const onRunning: Array<[string, string, (id: string) => Record<string, unknown>, RegExp, string | undefined]> = [
      ['a bad id format', 'pty_read', () => ({ id: 'pty_XYZ' }), /id: must be a PTY id like "pty_1a2b3c4d"/, undefined],
      ['offset > 10000', 'pty_read', (id) => ({ id, offset: 10_001 }), /offset: must be at most 10000/, undefined],
      ['limit 0', 'pty_read', (id) => ({ id, limit: 0 }), /limit: must be at least 1/, undefined],
      ['limit 2001', 'pty_read', (id) => ({ id, limit: 2001 }), /limit: must be at most 2000/, undefined],
      [
        'a pattern too long',
        'pty_read',
        (id) => ({ id, pattern: 'a'.repeat(MAX_PATTERN_CHARS + 1) }),
        new RegExp(`pattern: at most ${MAX_PATTERN_CHARS} characters`),
        undefined,
      ],
      [
        'tail with offset',
        'pty_read',
        (id) => ({ id, tail: true, offset: 0 }),
        /either offset .* or tail .*, not both/,
        'invalid_input',
      ],
      [
        'an invalid escape',
        'pty_write',
        (id) => ({ id, data: 'a\\qb' }),
        /invalid escape "\\q" at position 1.*accepted escapes are/,
        'invalid_input',
      ],
      [
        'more than 65536 bytes',
        'pty_write',
        (id) => ({ id, data: 'x'.repeat(MAX_WRITE_BYTES + 1) }),
        new RegExp(`at most ${MAX_WRITE_BYTES} bytes`),
        'limit',
      ],
      ['a bad id to kill', 'pty_kill', () => ({ id: 'PTY_12345678' }), /id: must be a PTY id/, undefined],
      ['an unknown key to list', 'pty_list', () => ({ all: true }), /Unrecognized key.*all/, undefined],
    ];

    it.each(onRunning)('%s (%s)', async (_case, tool, args, message, code) => {
      const s = new Session(ctx.host, 'ses_bad');
      const { id } = await s.spawn({ command: 'cat', description: 'target' });
      await s.write(id, 'before\\n');
      await s.untilOutput(id, 'before');
      const asked = ctx.host.permissionLog.length;
      const before = await s.list();
      const failed = fails(await s.call(tool, args(id)));
      expect(failed.message).toMatch(message);
      if (code) expect(failed.code).toBe(code);
      expect(ctx.host.permissionLog).toHaveLength(asked);
      expect(await s.list()).toEqual(before);
      expect(await s.text(id)).toBe('before');
    });
  });

  // V2 served sessionID "": its PTYs would have been ended by no session's deletion.
  it('refuses a call without a session id, asking nothing and starting nothing', async () => {
    const nobody = new Session(ctx.host, '');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['pty_spawn', { command: 'sleep', args: ['100'], description: 'orphan' }],
      ['pty_list', {}],
      ['pty_read', { id: 'pty_1a2b3c4d' }],
    ];
    for (const [tool, args] of calls) {
      expect(fails(await nobody.call(tool, args))).toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(/^the host called this tool without a session id .*; nothing was done\.$/),
      });
    }
    expect(ctx.host.permissionLog).toHaveLength(0);
  });

  it('keeps PTYs owner-scoped: another session can neither list, read, write nor kill them', async () => {
    const owner = new Session(ctx.host, 'ses_owner');
    const other = new Session(ctx.host, 'ses_other');
    const { id } = await owner.spawn({ command: 'cat', description: 'private' });
    const asked = ctx.host.permissionLog.length;

    expect(await other.list()).toEqual([]);
    for (const [tool, args] of [
      ['pty_read', { id }],
      ['pty_write', { id, data: 'x\\n' }],
      ['pty_kill', { id }],
      ['pty_kill', { id, cleanup: true }],
    ] as const) {
      const failed = fails(await other.call(tool, args));
      expect(failed.code).toBe('not_found');
      expect(failed.message).toContain(`no PTY ${id} in this session`);
    }
    expect(ctx.host.permissionLog).toHaveLength(asked);
    const mine = await owner.list();
    expect(mine.map((p) => [p.id, p.status, p.lineCount])).toEqual([[id, 'running', 0]]);
  });
});
