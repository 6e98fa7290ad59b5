import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import {
  externalDirectoryRequest,
  killRequest,
  promptCommandLine,
  spawnRequest,
  typingRequest,
} from '../../src/core/permission-requests.js';

describe('permission requests', () => {
  it('spawn: the command line as the pattern, the workdir and description beside it', () => {
    expect(spawnRequest("sh -c 'echo hi'", '/p', 'say hi')).toEqual({
      permission: 'bash',
      patterns: ["sh -c 'echo hi'"],
      title: "Start PTY: sh -c 'echo hi'",
      metadata: { command: "sh -c 'echo hi'", workdir: '/p', description: 'say hi', tool: 'pty_spawn' },
    });
  });

  it("shows a word with control or invisible characters as $'…' with them escaped, plain words as they are", () => {
    // A carriage return and an erase line would hide `echo SAFE # ` behind what follows on a terminal-like prompt.
    expect(
      promptCommandLine('bash', ['-c', 'echo SAFE # \r\u001b[2Kecho harmless', '\u202eoi\u202c', 'x\u200by']),
    ).toBe("bash -c $'echo SAFE # \\r\\x1B[2Kecho harmless' $'\\u202Eoi\\u202C' $'x\\u200By'");
    expect(promptCommandLine('git', ['commit', '-m', "it's done", 'C:\\x'])).toBe(
      "git commit -m 'it'\\''s done' 'C:\\x'",
    );
    expect(spawnRequest('ls', '/p', 'list\u001b[2J').metadata['description']).toBe('list\\x1B[2J');
    // Characters that draw nothing though no format class says so, and one beyond U+FFFF in bash's own form.
    expect(promptCommandLine('echo', ['a\u3164b', 'x\ufe0fy', 'z\u{E0100}', 'q\u{1D173}'])).toBe(
      "echo $'a\\u3164b' $'x\\uFE0Fy' $'z\\U000E0100' $'q\\U0001D173'",
    );
    // Readable text stays as it is: accents, CJK, an emoji with its presentation selector.
    expect(promptCommandLine('echo', ['café', '日本', '❤\ufe0f'])).toBe("echo 'café' '日本' '❤\ufe0f'");
  });

  it("$'…' as shown is, read by bash, the word itself", () => {
    const word = fc
      .array(
        fc.constantFrom(
          ..."ab '\\u\r\n\t\x1b\x07\u202e\u200b\u00e9\u3164\ufe0f".split(''),
          '\u{1D173}',
          '\u{E0041}',
          '\u{E0100}',
          '😀',
          '❤\ufe0f',
          '\\uD834',
        ),
        { maxLength: 8 },
      )
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), (args) => {
        const line = promptCommandLine('printf', ['%s\\0', ...args]);
        const printed = execFileSync('bash', ['-c', line], { encoding: 'utf8' });
        expect(printed.split('\0').slice(0, -1)).toEqual(args);
      }),
      { numRuns: 60 },
    );
  });

  it('the root as a workdir: everything under it is /*, not //*', () => {
    expect(externalDirectoryRequest('/', 'pwd').patterns).toEqual(['/*']);
  });

  it('a workdir outside the project: everything under it', () => {
    expect(externalDirectoryRequest('/elsewhere', 'pwd')).toEqual({
      permission: 'external_directory',
      patterns: ['/elsewhere/*'],
      title: 'Run a PTY in /elsewhere, outside the project',
      metadata: { directory: '/elsewhere', command: 'pwd' },
    });
  });

  it('typing: the visible bytes as the pattern; named keys in the title and metadata only when given', () => {
    expect(typingRequest('pty_1a2b3c4d', 'cat', 'cat', { visible: 'ls\\r', byteCount: 3, keys: undefined })).toEqual({
      permission: 'bash',
      patterns: ['pty_write ls\\r'],
      title: 'Type into pty_1a2b3c4d (cat): ls\\r',
      metadata: { id: 'pty_1a2b3c4d', command: 'cat', bytes: 'ls\\r', byteCount: 3, tool: 'pty_write' },
    });
    const withKeys = typingRequest('pty_1a2b3c4d', 'python3', 'python3 -q', {
      visible: '\\x03',
      byteCount: 1,
      keys: 'ctrl+c',
    });
    expect(withKeys.title).toBe('Type into pty_1a2b3c4d (python3): ctrl+c (bytes: \\x03)');
    expect(withKeys.metadata).toEqual({
      id: 'pty_1a2b3c4d',
      command: 'python3 -q',
      bytes: '\\x03',
      byteCount: 1,
      keys: 'ctrl+c',
      tool: 'pty_write',
    });
  });

  it('kill: a pattern that reads as ending a PTY, not as running kill', () => {
    expect(killRequest('pty_1a2b3c4d', 'sleep 30', true)).toEqual({
      permission: 'bash',
      patterns: ['pty_kill sleep 30'],
      title: 'End PTY pty_1a2b3c4d: sleep 30',
      metadata: { id: 'pty_1a2b3c4d', command: 'sleep 30', cleanup: true, tool: 'pty_kill' },
    });
  });
});
