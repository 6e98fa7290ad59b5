import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { InheritableDescriptors } from '../../src/engine/inheritable-fds.js';
import { waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(30_000);

/**
 * Before a read that failed for a descriptor closed after its open was taken for "held", 6 to 15 in 5,000 probes
 * of the churning process said yes (and 221 in 20,000 once): this many leave no real chance of missing that.
 */
const CHURN_PROBES = 10_000;

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
  const said = async (child: ChildProcess, word: string) => {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await waitFor(() => out.includes(word), `the child says ${word}`);
  };
  /** A shell that has closed what it inherited and runs each line of its stdin (bash opens without close-on-exec). */
  const evalShell = async () => {
    const shell = bash(`${CLEAN}; echo ready; while read -r line; do eval "$line"; done`);
    await said(shell, 'ready');
    expect(fdsOf(shell.pid!).filter((fd) => fd > 2)).toEqual([]);
    return shell;
  };

  it('sees none in a Node process that only has its own (close-on-exec) descriptors', async () => {
    const node = bash(
      `${CLEAN}; exec "$1" -e 'process.stdout.write("ready"); setTimeout(() => {}, 60000)'`,
      process.execPath,
    );
    // Only once node runs our script: while it starts, it briefly holds a file opened without close-on-exec
    // (fd 3, read-only, seen), and before the exec bash may still be closing what it inherited.
    await said(node, 'ready');
    expect(fdsOf(node.pid!).some((fd) => fd > 2)).toBe(true);
    expect(new InheritableDescriptors(`/proc/${node.pid}`).held()).toBe(false);
  });

  it('sees one opened without close-on-exec, and forgets it once closed', async () => {
    // A shell that opens and closes fd 7 (bash opens it without close-on-exec) line by line from its stdin.
    const shell = await evalShell();
    const probe = new InheritableDescriptors(`/proc/${shell.pid}`);
    expect(probe.held()).toBe(false);
    shell.stdin!.write('exec 7</etc/hostname\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/7`), 'fd 7 is open');
    expect(probe.held()).toBe(true);
    shell.stdin!.write('exec 7<&-\n');
    await waitFor(() => !existsSync(`/proc/${shell.pid}/fd/7`), 'fd 7 is closed');
    expect(probe.held()).toBe(false);
  });

  it('does not count one on a device that grants nothing (as OpenCode’s Bun holds /dev/urandom), but does count a file', async () => {
    const shell = await evalShell();
    const probe = new InheritableDescriptors(`/proc/${shell.pid}`);
    shell.stdin!.write('exec 7</dev/urandom 8</dev/null 9>/dev/null\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/9`), 'fds 7 to 9 are open');
    expect(probe.held()).toBe(false);
    shell.stdin!.write('exec 6</etc/hostname\n');
    await waitFor(() => existsSync(`/proc/${shell.pid}/fd/6`), 'fd 6 is open');
    expect(probe.held()).toBe(true);
  });

  it('does not count a descriptor closed while it is looked at (its read fails, not its open)', async () => {
    // Python opens close-on-exec by default; each probe is new, so it reads every descriptor's flags afresh.
    const churn = spawn(
      'python3',
      [
        '-c',
        [
          'import os',
          'os.closerange(3, 65536)',
          'print("ready", flush=True)',
          'while True: os.close(os.open("/etc/hostname", os.O_RDONLY))',
        ].join('\n'),
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    started.push(churn);
    await said(churn, 'ready');
    let seen = 0;
    for (let probe = 0; probe < CHURN_PROBES; probe++)
      if (new InheritableDescriptors(`/proc/${churn.pid}`).held()) seen++;
    expect(existsSync(`/proc/${churn.pid}/fd`)).toBe(true);
    expect(seen).toBe(0);
  });

  it('says yes when /proc cannot tell (the closing step is then kept)', () => {
    expect(new InheritableDescriptors('/proc/no-such-process').held()).toBe(true);
  });
});
