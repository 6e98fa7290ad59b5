import {
  externalDirectoryRequest,
  killRequest,
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
