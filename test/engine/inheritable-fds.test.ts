import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { InheritableDescriptors } from '../../src/engine/inheritable-fds.js';
import { waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(30_000);

/** Closes every descriptor above 2 it inherited (the test runner's own may leak), then runs `then`. */
const CLEAN = 'for f in /proc/$$/fd/*; do n=${f##*/}; [[ $n == *[!0-9]* ]] || (( n <= 2 )) || exec {n}>&-; done';

describe('InheritableDescriptors (whether a host would pass a descriptor to what it spawns)', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
  });
  const bash = (script: string, ...args: string[]) => {
    const child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', script, 'x', ...args], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    started.push(child);
    return child;
  };
  const fdsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).map(Number);

  it('sees none in a Node process that only has its own (close-on-exec) descriptors', async () => {
    const node = bash(
      `${CLEAN}; exec "$1" -e 'process.stdout.write("ready"); setTimeout(() => {}, 60000)'`,
      process.execPath,
    );
    // Only once node runs our script: while it starts, it briefly holds a file opened without close-on-exec
    // (fd 3, read-only, seen), and before the exec bash may still be closing what it inherited.
    let out = '';
    node.stdout!.on('data', (d) => (out += d));
    await waitFor(() => out === 'ready', 'node runs the script');
    expect(fdsOf(node.pid!).some((fd) => fd > 2)).toBe(true);
    expect(new InheritableDescriptors(`/proc/${node.pid}`).held()).toBe(false);
  });

  it('sees one opened without close-on-exec, and forgets it once closed', async () => {
    // A shell that opens and closes fd 7 (bash opens it without close-on-exec) line by line from its stdin.
    const shell = bash(`${CLEAN}; while read -r line; do eval "$line"; done`);
    const probe = new InheritableDescriptors(`/proc/${shell.pid}`);
    await waitFor(() => !fdsOf(shell.pid!).some((fd) => fd > 2), 'the shell has closed what it inherited');
    expect(probe.held()).toBe(false);
    shell.stdin!.write('exec 7</etc/hostname\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/7`), 'fd 7 is open');
    expect(probe.held()).toBe(true);
    shell.stdin!.write('exec 7<&-\n');
    await waitFor(() => !existsSync(`/proc/${shell.pid}/fd/7`), 'fd 7 is closed');
    expect(probe.held()).toBe(false);
  });

  it('does not count one on a device that grants nothing (as OpenCode’s Bun holds /dev/urandom), but does count a file', async () => {
    const shell = bash(`${CLEAN}; while read -r line; do eval "$line"; done`);
    const probe = new InheritableDescriptors(`/proc/${shell.pid}`);
    await waitFor(() => !fdsOf(shell.pid!).some((fd) => fd > 2), 'the shell has closed what it inherited');
    shell.stdin!.write('exec 7</dev/urandom 8</dev/null 9>/dev/null\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/9`), 'fds 7 to 9 are open');
    expect(probe.held()).toBe(false);
    shell.stdin!.write('exec 6</etc/hostname\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/6`), 'fd 6 is open');
    expect(probe.held()).toBe(true);
  });

  it('says yes when /proc cannot tell (the closing step is then kept)', () => {
    expect(new InheritableDescriptors('/proc/no-such-process').held()).toBe(true);
  });
});
