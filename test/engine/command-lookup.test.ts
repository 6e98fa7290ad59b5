import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCommandRuns } from '../../src/engine/command-lookup.js';
import { caught } from '../support/caught.js';

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

describe('checkCommandRuns of a script whose #! interpreter cannot run', () => {
  let bin: string;
  const script = (dir: string, name: string, text: string, mode = 0o755) => {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), mode);
  };
  beforeAll(() => {
    bin = join(workdir, 'bin');
    mkdirSync(bin);
    script(workdir, 'badshebang', '#!/nonexistent/interp\necho hi\n');
    script(workdir, 'crlf', '#!/bin/sh\r\necho hi\r\n');
    script(workdir, 'relative', '#!./interp -x\necho hi\n');
    script(workdir, 'plain-file-interp', '#!/etc/passwd\n');
    script(workdir, 'no-newline', '#!/nonexistent/interp');
    script(workdir, 'env', '#!/usr/bin/env python3\nprint(1)\n');
    script(workdir, 'blanks', '#! \t/bin/sh -e\necho hi\n');
    script(workdir, 'no-shebang', 'echo hi\n');
    script(workdir, 'empty', '');
    script(bin, 'badtool', '#!/nonexistent/interp\n');
  });

  it('says the interpreter named on the #! line does not exist (the wrapper said the script did not)', () => {
    const { code, message } = caught(() => checkCommandRuns('./badshebang', workdir, PATH));
    expect(code).toBe('spawn_failed');
    expect(message).toBe(
      `pty_spawn: "./badshebang" (${join(workdir, 'badshebang')}) cannot run: its #! line names the interpreter "/nonexistent/interp", which cannot run: no such file. Fix the #! line, or run the script through an interpreter that exists (command: "bash" or "python3", args: [the script, ...]). Nothing was started.`,
    );
    expect(caught(() => checkCommandRuns(join(workdir, 'no-newline'), workdir, PATH)).message).toMatch(
      /^pty_spawn: "\/.*\/no-newline" cannot run: its #! line names the interpreter "\/nonexistent\/interp", which cannot run: no such file\./,
    );
    expect(caught(() => checkCommandRuns('./plain-file-interp', workdir, PATH)).message).toMatch(
      /its #! line names the interpreter "\/etc\/passwd", which cannot run: it is not executable/,
    );
  });

  it('says so of a script found on the PATH, naming its file', () => {
    expect(caught(() => checkCommandRuns('badtool', workdir, bin)).message).toMatch(
      new RegExp(
        `^pty_spawn: "badtool" \\(${join(bin, 'badtool')}\\) cannot run: its #! line names the interpreter "/nonexistent/interp"`,
      ),
    );
  });

  it('says that a #! line ending in a carriage return (Windows line endings) names no interpreter that exists', () => {
    expect(caught(() => checkCommandRuns('./crlf', workdir, PATH)).message).toMatch(
      /cannot run: its #! line ends in a carriage return \(the file has Windows line endings\), so the interpreter it names is "\/bin\/sh\\r", which does not exist\. Convert the file to Unix line endings \(dos2unix, or sed -i 's\/\\r\$\/\/' on it\)\. Nothing was started\.$/,
    );
  });

  it('takes a relative interpreter from the working directory, as the kernel does', () => {
    expect(caught(() => checkCommandRuns('./relative', workdir, PATH)).message).toMatch(
      /its #! line names the interpreter "\.\/interp", which cannot run: no such file/,
    );
    script(workdir, 'interp', '');
    expect(() => checkCommandRuns('./relative', workdir, PATH)).not.toThrow();
  });

  it('passes a script whose interpreter runs, and files with no #! line', () => {
    for (const command of ['./env', './blanks', './no-shebang', './empty']) {
      expect(() => checkCommandRuns(command, workdir, PATH)).not.toThrow();
    }
  });
});
