import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { checkCommandBounds, checkPathBounds } from '../../src/engine/command-bounds.js';
import { parseStat } from '../../src/engine/procfs.js';
import { shellCommandLine, shellQuote } from '../../src/engine/shell-quote.js';
import { inferSignalFromExitCode } from '../../src/engine/signal-names.js';
import { longestLine } from '../../src/engine/terminal-mode.js';
import { MAX_ARG_BYTES, MAX_ARGS, MAX_COMMAND_BYTES, MAX_PATH_BYTES, MAX_TOTAL_ARG_BYTES } from '../../src/limits.js';

describe('command bounds', () => {
  it('accepts the limits exactly and refuses one past each, naming the limit', () => {
    expect(() => checkCommandBounds('x'.repeat(MAX_COMMAND_BYTES), [])).not.toThrow();
    expect(() => checkCommandBounds('x'.repeat(MAX_COMMAND_BYTES + 1), [])).toThrow(
      `the limit is ${MAX_COMMAND_BYTES} bytes`,
    );
    expect(() => checkCommandBounds('x', Array(MAX_ARGS).fill('a'))).not.toThrow();
    expect(() => checkCommandBounds('x', Array(MAX_ARGS + 1).fill('a'))).toThrow(`the limit is ${MAX_ARGS}`);
    expect(() => checkCommandBounds('x', ['a'.repeat(MAX_ARG_BYTES)])).not.toThrow();
    expect(() => checkCommandBounds('x', ['a'.repeat(MAX_ARG_BYTES + 1)])).toThrow(
      `args[0] is ${MAX_ARG_BYTES + 1} bytes`,
    );
    const five = Array(5).fill('a'.repeat(MAX_ARG_BYTES));
    expect(() => checkCommandBounds('x', five)).toThrow(`the limit is ${MAX_TOTAL_ARG_BYTES} bytes`);
    expect(() => checkPathBounds('workdir', '/'.repeat(MAX_PATH_BYTES + 1))).toThrow(
      `the limit is ${MAX_PATH_BYTES} bytes`,
    );
  });

  it('counts bytes, not characters (UTF-8)', () => {
    expect(() => checkCommandBounds('€'.repeat(Math.floor(MAX_COMMAND_BYTES / 3)), [])).not.toThrow();
    expect(() => checkCommandBounds('€'.repeat(Math.floor(MAX_COMMAND_BYTES / 3) + 1), [])).toThrow(/bytes; the limit/);
  });

  it('refuses NUL, lone surrogates and an empty command', () => {
    expect(() => checkCommandBounds('a\0b', [])).toThrow(/NUL/);
    expect(() => checkCommandBounds('x', ['ok', 'b\0'])).toThrow(/args\[1\] contains a NUL/);
    expect(() => checkCommandBounds('x', ['\ud800'])).toThrow(/not valid UTF-8/);
    expect(() => checkCommandBounds('', [])).toThrow(/empty/);
  });
});

describe('shell quoting', () => {
  // Bare-looking words and shell metacharacters as well as arbitrary text: quoting is skipped for some words now.
  const word = fc.oneof(
    fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\0', '')),
    fc.stringMatching(/^[A-Za-z0-9_@%+=:,./-]{1,8}$/),
    fc.constantFrom(
      '',
      '-',
      '=',
      'a=b',
      '~',
      '~/x',
      '#x',
      '{a,b}',
      'a b',
      "'",
      '*',
      '?',
      '!',
      '$HOME',
      '`id`',
      'a\nb',
      '\\',
      ';',
      '&&',
    ),
  );

  it('round-trips any argument list through a real /bin/sh, as the command line the wrapper execs (property)', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), (words) => {
        const out = execFileSync('/bin/sh', ['-c', `exec ${shellCommandLine('printf', ['%s\\0', ...words])}`], {
          env: { PATH: '/usr/bin:/bin' },
        });
        expect(out.toString('utf8').split('\0').slice(0, -1)).toEqual(words.length === 0 ? [''] : words);
      }),
      { numRuns: 150 },
    );
  });

  it('leaves plain words bare, so that users\' bash rules such as "git *" match, and quotes the rest', () => {
    expect(shellCommandLine('git', ['commit', '-m', "it's"])).toBe(`git commit -m 'it'\\''s'`);
    expect(shellCommandLine('python3', ['-i', '--x=1', 'a/b.py', ''])).toBe(`python3 -i --x=1 a/b.py ''`);
    expect(shellCommandLine('ls', ['*', '~', '$HOME', 'a b'])).toBe(`ls '*' '~' '$HOME' 'a b'`);
    // A bare first word with = would be an assignment, not a program.
    expect(shellCommandLine('a=b', ['c=d'])).toBe(`'a=b' c=d`);
    expect(shellQuote('')).toBe(`''`);
  });
});

describe('/proc stat parsing', () => {
  it('reads the fields after the last parenthesis, whatever the command name holds', () => {
    const line = '4242 (we ird) (name) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0';
    expect(parseStat(4242, line)).toEqual({
      pid: 4242,
      state: 'S',
      ppid: 1,
      pgrp: 4242,
      sessionId: 4242,
      ttyNr: 0,
      startTime: 987654,
    });
  });
});

describe('inferred signals', () => {
  it('names 129–192 by convention and nothing else', () => {
    expect(inferSignalFromExitCode(137)).toBe('SIGKILL');
    expect(inferSignalFromExitCode(130)).toBe('SIGINT');
    expect(inferSignalFromExitCode(128)).toBeNull();
    expect(inferSignalFromExitCode(193)).toBeNull();
    expect(inferSignalFromExitCode(0)).toBeNull();
    expect(inferSignalFromExitCode(null)).toBeNull();
  });
});

describe('canonical line length', () => {
  it('measures the longest line across writes, line ends being \\n, \\r, ^D and ^C', () => {
    expect(longestLine(0, Buffer.from('abc\nde'))).toEqual({ longest: 3, pendingAfter: 2 });
    expect(longestLine(4090, Buffer.from('abcdef'))).toEqual({ longest: 4096, pendingAfter: 4096 });
    expect(longestLine(10, Buffer.from('\rxy\x04'))).toEqual({ longest: 10, pendingAfter: 0 });
  });

  it('follows the line editing the tty driver does: ^U empties the line, ^? takes a byte back', () => {
    // 3000 bytes killed with ^U, then 2000: the line sent is 2000 bytes, not 5001.
    expect(longestLine(0, Buffer.from(`${'a'.repeat(3000)}\x15${'b'.repeat(2000)}\n`))).toEqual({
      longest: 3000,
      pendingAfter: 0,
    });
    expect(longestLine(4095, Buffer.from('\x7f\x7fz'))).toEqual({ longest: 4095, pendingAfter: 4094 });
    expect(longestLine(0, Buffer.from('\x7fab'))).toEqual({ longest: 2, pendingAfter: 2 });
  });
});
