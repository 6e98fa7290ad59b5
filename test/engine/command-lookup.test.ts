import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCommandRuns } from '../../src/engine/command-lookup.js';
import { PtyError } from '../../src/errors.js';

/** The PtyError `run` throws (fails the test when it throws nothing or something else). */
function caught(run: () => unknown): PtyError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PtyError);
    return err as PtyError;
  }
  throw new Error('expected a PtyError, nothing was thrown');
}

const PATH = '/usr/local/bin:/usr/bin:/bin';
let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'command-lookup-'));
  writeFileSync(join(workdir, 'run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(join(workdir, 'run.sh'), 0o755);
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

describe('checkCommandRuns', () => {
  it('passes a name on the PATH and an executable path', () => {
    expect(() => checkCommandRuns('echo', workdir, PATH)).not.toThrow();
    expect(() => checkCommandRuns('./run.sh', workdir, PATH)).not.toThrow();
  });

  it('says that the arguments of a command line in command go in args, or that bash -c runs a shell line', () => {
    const { code, message } = caught(() => checkCommandRuns('echo hi  there', workdir, PATH));
    expect(code).toBe('spawn_failed');
    expect(message).toBe(
      `pty_spawn: command not found: "echo hi  there" is in none of the PTY's PATH directories (${PATH}). command names the program alone, without arguments (it is not a shell line): give command "echo", args ["hi", "there"], each argument its own string; or, to run it as a shell line (pipes, &&, quoting), command "bash", args ["-c", "echo hi  there"]. Nothing was started.`,
    );
    expect(message).not.toMatch(/\.\/echo/);
    // A path whose first word runs, found after the prompt, is told the same.
    expect(caught(() => checkCommandRuns('./run.sh --fast', workdir, PATH)).message).toMatch(
      /^pty_spawn: "\.\/run\.sh --fast" cannot run: no such file \(looked for in .*\)\. command names the program alone.*give command "\.\/run\.sh", args \["--fast"\]/,
    );
    // A trailing space alone.
    expect(caught(() => checkCommandRuns('echo ', workdir, PATH)).message).toMatch(
      /give command "echo", each argument/,
    );
  });

  it('says that the command is the program alone when its first word does not run either, and suggests no ./ path', () => {
    const { message } = caught(() => checkCommandRuns('no-such-program-x --flag', workdir, PATH));
    expect(message).toBe(
      `pty_spawn: command not found: "no-such-program-x --flag" is in none of the PTY's PATH directories (${PATH}). command holds whitespace: it names the program alone, and its arguments go in args, one string each. Nothing was started.`,
    );
  });

  it.each(['.', '..'])('says that %s names a directory, not a program (it suggested ./.)', (command) => {
    expect(caught(() => checkCommandRuns(command, workdir, PATH)).message).toBe(
      `pty_spawn: ${JSON.stringify(command)} names a directory, not a program: give the program to run, by name ("python3") or by its path ("./run.sh"). Nothing was started.`,
    );
  });

  it('still suggests the path of a plain name that is not on the PATH', () => {
    expect(caught(() => checkCommandRuns('build-it', workdir, PATH)).message).toMatch(
      /is in none of the PTY's PATH directories .*\. Give its path \(\.\/build-it, or an absolute one\)/,
    );
  });

  it('says that a leading ~ is not expanded', () => {
    expect(caught(() => checkCommandRuns('~/bin/tool', workdir, PATH)).message).toMatch(
      /^pty_spawn: "~\/bin\/tool" cannot run: no such file \(looked for in .*\)\. A leading ~ is not expanded \(no shell reads the command\): give the absolute path\. Nothing was started\.$/,
    );
  });
});
