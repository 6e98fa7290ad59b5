import { guardCommand, OrphanGuard, orphanGuard } from '../../src/engine/orphan-guard.js';
import { spawn } from 'node:child_process';
import {
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { PtyError } from '../../src/errors.js';
import { fixedEnvironment } from '../../src/engine/environment.js';
import { scriptInvocation, type WrapperKind } from '../../src/engine/script-invocation.js';
import { InheritableDescriptors } from '../../src/engine/inheritable-fds.js';
import { childrenOf } from '../../src/engine/procfs.js';
import { BASH_PATH, SCRIPT_PATH, SETPRIV_PATH } from '../../src/engine/system-paths.js';
import { KEPT_CHILD_SPECIMENS, TERMINATE_GRACE_MS } from '../../src/limits.js';
import { childSpecimens, pipeHandleSpecimens } from '../../src/streams/child-specimens.js';
import { streamShapes } from '../../src/streams/pty-process.js';
import { PtyProbe, runToExit } from '../support/pty-probe.js';
import {
  childrenOfSelf,
  commOf,
  isRunning,
  openFdCount,
  openFlagsOf,
  pidsWithMarker,
} from '../../src/testkit/processes.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(60_000);

describe('PTY engine with real script processes', () => {
  it('round-trips output with bare \\n line ends (onlcr off) and a sized terminal', async () => {
    const { text, exit } = await runToExit({ command: 'sh', args: ['-c', 'printf "a\\nb\\n"; stty size'] });
    expect(text).toBe('a\nb\n40 120\n');
    expect(exit.exitCode).toBe(0);
    const sized = await runToExit({ command: 'stty', args: ['size'], rows: 7, cols: 33 });
    expect(sized.text).toBe('7 33\n');
  });

  it('runs in the bound working directory', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-wd-')));
    try {
      expect((await runToExit({ command: 'pwd', workdir: dir })).text).toBe(`${dir}\n`);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('feeds stdin to an interactive cat without echo; \\x04 is EOF', async () => {
    const probe = new PtyProbe({ command: 'cat' });
    try {
      expect(await probe.write('hello\n')).toBe(6);
      await probe.output('hello\n');
      await sleep(100);
      expect(probe.text).toBe('hello\n');
      await probe.write('\x04');
      expect((await probe.exited()).exitCode).toBe(0);
    } finally {
      await probe.dispose();
    }
  });

  it('drives a python3 REPL', async () => {
    const probe = new PtyProbe({ command: 'python3', args: ['-q'] });
    try {
      await probe.output('>>> ');
      await probe.write('print(6 * 7)\n');
      await probe.output(/42\r?\n/);
      await probe.write('exit()\n');
      expect((await probe.exited()).exitCode).toBe(0);
    } finally {
      await probe.dispose();
    }
  });

  it('passes every byte of every argument unchanged (property)', async () => {
    const arg = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replaceAll('\0', ''));
    const hostile = fc.constantFrom(
      "'",
      '"',
      '$(id)',
      '`id`',
      '*',
      '\n',
      ' ',
      '\\',
      "'\\''",
      '$HOME',
      '!',
      ';',
      '-n',
      '',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(arg, hostile), { minLength: 1, maxLength: 60 }), async (args) => {
        const { text, exit } = await runToExit({ command: 'printf', args: ['%s\\0', ...args] });
        expect(exit.exitCode).toBe(0);
        expect(text.split('\0').slice(0, -1)).toEqual(args);
      }),
      { numRuns: 25 },
    );
  });

  it('keeps the host environment invisible; identity comes from the user database', async () => {
    process.env.LOCAL_PTY_TEST_SECRET = 'sk-do-not-leak-4242';
    try {
      const { text } = await runToExit({ command: 'env' });
      expect(text).not.toContain('sk-do-not-leak-4242');
      const env = Object.fromEntries(
        text
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      const me = userInfo();
      expect(env).toMatchObject({
        HOME: me.homedir,
        USER: me.username,
        LOGNAME: me.username,
        LANG: 'C.UTF-8',
        PATH: '/usr/local/bin:/usr/bin:/bin',
        SHELL: '/bin/sh',
        TERM: 'xterm-256color',
      });
      // Only what the fixed env gives, plus what the shells add themselves (PWD, SHLVL, OLDPWD).
      expect(Object.keys(env).sort()).toEqual(
        [...Object.keys(fixedEnvironment()), 'PWD', 'SHLVL'].sort().filter((k) => k in env),
      );
      expect(
        Object.keys(env).filter((k) => !(k in fixedEnvironment()) && !['PWD', 'SHLVL', 'OLDPWD'].includes(k)),
      ).toEqual([]);
    } finally {
      delete process.env.LOCAL_PTY_TEST_SECRET;
    }
  });

  it.each([
    [['exit 0'], 0, null],
    [['exit 3'], 3, null],
    [['exit 255'], 255, null],
    [['kill -SEGV $$'], 139, 'SIGSEGV'],
    [['kill -TERM $$'], 143, 'SIGTERM'],
  ])('reports the exit of sh -c %j as %i (inferred signal %s)', async (args, code, inferred) => {
    const { exit } = await runToExit({ command: 'sh', args: ['-c', ...args] });
    expect(exit).toMatchObject({ exitCode: code, signal: null, inferredSignal: inferred });
  });

  it('reports 127 for a command that does not exist', async () => {
    const { text, exit } = await runToExit({ command: 'no-such-command-local-pty' });
    expect(exit.exitCode).toBe(127);
    expect(text).toContain('not found');
  });

  it('decodes UTF-8 split across chunks without replacement characters', async () => {
    const { text } = await runToExit({
      command: 'sh',
      args: ['-c', "printf '\\342'; sleep 0.2; printf '\\202\\254\\n'"],
    });
    expect(text).toBe('€\n');
  });

  it('loses no output that arrives around the exit, read from the output socket or from the pipe', async () => {
    for (const outputChannel of [true, false]) {
      const { text } = await runToExit(
        { command: 'sh', args: ['-c', 'head -c 3000000 /dev/zero | tr "\\0" a'] },
        10_000,
        { outputChannel },
      );
      expect({ outputChannel, length: text.length }).toEqual({ outputChannel, length: 3_000_000 });
    }
  });

  it('gives script a stdout in blocking mode, the output socket (Node) as the pipe (Bun)', async () => {
    // A non-blocking one fails a write with EAGAIN once full, where script's write_all sleeps 250 ms.
    for (const outputChannel of [true, false]) {
      const probe = new PtyProbe({ command: 'sh', args: ['-c', 'read x'] }, undefined, { outputChannel });
      const { pid } = await probe.started();
      expect(readlinkSync(`/proc/${pid}/fd/1`)).toMatch(/^socket:/);
      expect({ outputChannel, nonBlocking: openFlagsOf(pid, 1) & constants.O_NONBLOCK }).toEqual({
        outputChannel,
        nonBlocking: 0,
      });
      await probe.dispose();
    }
  });

  it('keeps the last finished script child as a specimen, with every pipe closed and nothing of its output', async () => {
    const probe = new PtyProbe({ command: 'sh', args: ['-c', 'echo kept-child-output'] });
    const { pid } = await probe.started();
    await probe.sessionEmpty();
    const kept = childSpecimens.specimens;
    expect(kept).toHaveLength(KEPT_CHILD_SPECIMENS);
    const child = kept[0];
    expect(child?.pid).toBe(pid);
    expect(child?.exitCode).toBe(0);
    expect(child?.stdio.length).toBeGreaterThanOrEqual(3);
    // No listener of its stream is left on it: each closed over the stream's subscriber, and through it the PTY's
    // buffer (a heap snapshot found a removed PTY's megabyte kept that way). Each pipe keeps one that holds nothing.
    expect(child?.eventNames()).toEqual([]);
    for (const stream of child?.stdio ?? []) {
      if (!stream) continue;
      expect(stream.destroyed).toBe(true);
      if ('readableLength' in stream) expect(stream.readableLength).toBe(0);
      expect(stream.eventNames()).toEqual(['error']);
      expect(stream.listenerCount('error')).toBe(1);
    }
    await probe.dispose();
    // The next PTY's child takes its place.
    const next = new PtyProbe({ command: 'true' });
    const nextPid = (await next.started()).pid;
    await next.sessionEmpty();
    await next.dispose();
    expect(childSpecimens.specimens.map((c) => c.pid)).toEqual([nextPid]);
  });

  it("keeps one of each class of a PTY's stream and its pipes' handles once it ends, none of them open", async () => {
    const streamsBefore = streamShapes.instance;
    const probe = new PtyProbe({ command: 'sh', args: ['-c', 'echo kept-shapes'] });
    await probe.started();
    // Node's pipe handles (a socket's `_handle`), had while the child runs: the kept ones are these very objects.
    const handles = pipeHandleSpecimens.specimens;
    expect(handles.length).toBeGreaterThanOrEqual(3);
    for (const handle of handles) expect(handle.constructor.name).toBe('Pipe');
    await probe.sessionEmpty();
    await probe.dispose();
    const kept = streamShapes.instance ?? [];
    expect(kept).not.toBe(streamsBefore);
    expect(kept.map((shape) => shape.constructor.name)).toEqual(['ChildEventRelay', 'StartFirst', 'OutputFirst']);
    // The relay kept is made with the kept child, and listens to nothing on it.
    expect(childSpecimens.specimens[0]?.eventNames()).toEqual([]);
    // The handles are closed: none holds a descriptor (a closed handle's fd is negative, in Node).
    for (const handle of handles) expect((handle as { fd?: number }).fd ?? -1).toBeLessThan(0);
  });

  it('ends a command that traps TERM and HUP with KILL after the grace period', async () => {
    const probe = new PtyProbe({
      command: 'sh',
      args: ['-c', 'trap "" TERM HUP INT; echo ready; while :; do sleep 0.05; done'],
    });
    try {
      const handle = await probe.started();
      await probe.output('ready');
      const leader = handle.terminalSid!;
      const t0 = Date.now();
      const report = await new Promise((resolve, reject) =>
        handle.terminate().subscribe({ next: resolve, error: reject }),
      );
      const took = Date.now() - t0;
      // script exits by itself once the session is empty, unless the leader's stop and death reached it as one
      // SIGCHLD (the sweep STOPs, then KILLs); it is then killed at once, and the exit code is the program's all
      // the same (script-missed-death.ts). Which one happens is the scheduler's call.
      expect(report).toMatchObject({ escalated: true });
      expect(took).toBeGreaterThanOrEqual(TERMINATE_GRACE_MS);
      expect(took).toBeLessThan(TERMINATE_GRACE_MS + 1_500);
      expect((await probe.exited()).exitCode).toBe(137);
      expect(isRunning(leader)).toBe(false);
      expect(isRunning(handle.pid)).toBe(false);
    } finally {
      await probe.dispose();
    }
  });

  it('ends a set -m background job (own process group) and a grandchild too', async () => {
    const marker = `${process.pid}${Date.now() % 100000}`;
    const script = `set -m; sleep 1001.${marker} & sh -c "sleep 1002.${marker} & wait" & echo ready; wait`;
    const probe = new PtyProbe({ command: 'sh', args: ['-c', script] });
    try {
      await probe.output('ready');
      await waitFor(() => pidsWithMarker(marker, 'sleep').length === 2, 'the three marked processes run');
      const handle = await probe.started();
      const report = await new Promise((resolve) => handle.terminate().subscribe(resolve));
      expect(report).toMatchObject({ termed: expect.any(Number) });
      await probe.exited();
      expect(pidsWithMarker(marker)).toEqual([]);
    } finally {
      await probe.dispose();
    }
  });

  it('cannot end a process that left the session with setsid (the documented limitation)', async () => {
    const marker = `${process.pid}${(Date.now() % 100000) + 7}`;
    const probe = new PtyProbe({ command: 'sh', args: ['-c', `setsid sleep 1003.${marker} & echo ready; sleep 1000`] });
    try {
      await probe.output('ready');
      await waitFor(() => pidsWithMarker(marker, 'sleep').length === 1, 'the escapee runs');
      const handle = await probe.started();
      await new Promise((resolve) => handle.terminate().subscribe(resolve));
      await probe.exited();
      const survivors = pidsWithMarker(marker);
      expect(survivors.map((pid) => commOf(pid))).toEqual(['sleep']);
      for (const pid of survivors) process.kill(pid, 'SIGKILL');
      await waitFor(() => pidsWithMarker(marker).length === 0, 'the test cleaned up its escapee');
    } finally {
      await probe.dispose();
    }
  });

  it('refuses a workdir swapped for a symlink after approval, and a swapped parent, starting nothing', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-swap-')));
    try {
      const approved = join(root, 'work');
      mkdirSync(approved);
      mkdirSync(join(root, 'elsewhere'));
      renameSync(approved, join(root, 'moved'));
      symlinkSync(join(root, 'elsewhere'), approved);
      const before = childrenOfSelf({ withOrphanGuard: true }).length;
      const probe = new PtyProbe({ command: 'pwd', workdir: approved });
      await expect(probe.started()).rejects.toMatchObject({ code: 'invalid_input' });
      expect(probe.error).toBeInstanceOf(PtyError);
      expect(childrenOfSelf({ withOrphanGuard: true }).length).toBe(before);

      mkdirSync(join(root, 'p', 'child'), { recursive: true });
      mkdirSync(join(root, 'q', 'child'), { recursive: true });
      const approvedChild = join(root, 'p', 'child');
      renameSync(join(root, 'p'), join(root, 'p-old'));
      symlinkSync(join(root, 'q'), join(root, 'p'));
      const probe2 = new PtyProbe({ command: 'pwd', workdir: approvedChild });
      await expect(probe2.started()).rejects.toThrow(/resolves to .*q\/child/);
    } finally {
      rmSync(root, { recursive: true });
    }
  });

  it('a PTY cut before its program starts is gone (reaped, not just signalled) when the cut returns', async () => {
    // A SIGKILL is delivered asynchronously: a termination that returned once it had signalled left script a live
    // child for a moment, which a loaded machine stretched into a failing close test.
    for (let round = 0; round < 30; round++) {
      const probe = new PtyProbe({ command: 'sleep', args: ['30'] });
      await new Promise((resolve) => setImmediate(resolve));
      await probe.dispose();
      expect(childrenOfSelf().filter((c) => c.state !== 'Z')).toEqual([]);
    }
  });

  it('leaves no descriptor, zombie or orphan after 200 spawn/kill cycles', async () => {
    // Warm up lazily created host descriptors (e.g. libuv's signal pipe) before counting.
    await await new PtyProbe({ command: 'true' }).exited();
    // The guard it started stays for the next PTY, holding its pipe: counted from a host with no guard.
    orphanGuard.stopIfIdle();
    await sleep(100);
    const fdsBefore = openFdCount();
    const marker = `lpty-cycle-${process.pid}`;
    for (let batch = 0; batch < 20; batch++) {
      const probes = Array.from(
        { length: 10 },
        () => new PtyProbe({ command: 'sh', args: ['-c', `echo ${marker}; exec cat`] }),
      );
      await Promise.all(probes.map((p) => p.output(marker)));
      await Promise.all(probes.map((p) => p.dispose()));
    }
    // The guard stays a while for the next PTY; what a closing plugin does ends it (orphan-guard.test.ts).
    orphanGuard.stopIfIdle();
    await waitFor(() => childrenOfSelf({ withOrphanGuard: true }).length === 0, 'every child is reaped', 5_000);
    expect(pidsWithMarker(marker)).toEqual([]);
    expect(openFdCount()).toBe(fdsBefore);
  });

  it("lists script's session on the orphan guard from its spawn until it is reaped, the terminal's until empty", async () => {
    const calls: string[] = [];
    const guard = new (class extends OrphanGuard {
      override watch(sid: number): void {
        calls.push(`+${sid}`);
        super.watch(sid);
      }
      override release(sid: number): void {
        calls.push(`-${sid}`);
        super.release(sid);
      }
    })(0);
    const probe = new PtyProbe({ command: 'sh', args: ['-c', 'read line; echo "got $line"'] }, undefined, {
      orphanGuard: guard,
    });
    try {
      // Before anything of the PTY was seen: from the spawn (once its output socket is connected, a turn or two
      // after the ask), script's pid, the only one known then.
      await waitFor(() => calls.length > 0, "script's spawn", 5_000);
      expect(guard.running).toBe(true);
      const { pid, terminalSid } = await probe.started();
      expect(calls).toEqual([`+${pid}`, `+${terminalSid}`]);
      await probe.write('x\n');
      await probe.sessionEmpty();
      expect(probe.text).toContain('got x');
      expect(calls).toEqual([`+${pid}`, `+${terminalSid}`, `-${pid}`, `-${terminalSid}`]);
      expect(guard.running).toBe(false);
    } finally {
      await probe.dispose();
      guard.stopIfIdle();
    }
  });

  describe('a host that inherited a descriptor without close-on-exec', () => {
    // The stand-in host inherits LEAKED_FD from bash, which opens it without close-on-exec, as a careless
    // parent would. Node marks low inherited descriptors close-on-exec itself (fd 7 never reaches a child,
    // measured), so the leak is placed high, where Node passes it on to what it spawns.
    const LEAKED_FD = 213;
    const leakTarget = '/etc/hostname';
    const sorted = (pid: number) =>
      readdirSync(`/proc/${pid}/fd`)
        .map(Number)
        .sort((a, b) => a - b);
    // The command's descriptors are read from outside, in /proc/<command pid>/fd: a shell listing its own
    // would race with the pipes it opens for a pipeline. So are script's (the host's child: each link execs).
    const run = async (
      file: string,
      args: readonly string[],
      marker: string,
      argv?: Buffer,
      invocationEnv?: Record<string, string>,
    ) => {
      const payload = JSON.stringify({
        file,
        args,
        env: invocationEnv ?? fixedEnvironment(),
        argv: argv?.toString('base64'),
      });
      const host = spawn(
        '/bin/bash',
        [
          '--norc',
          '--noprofile',
          '-c',
          `exec ${LEAKED_FD}<${leakTarget}; exec "$0" "$@"`,
          process.execPath,
          require.resolve('../fixtures/host-spawn.cjs'),
          payload,
        ],
        // stderr is a pipe, so that what script's stderr became can be told from /dev/null.
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      host.stderr!.resume();
      try {
        await waitFor(() => pidsWithMarker(marker, 'sleep').length === 1, 'the command runs');
        // Without this the checks below could pass because the host never had the descriptor at all.
        expect(readlinkSync(`/proc/${host.pid}/fd/${LEAKED_FD}`)).toBe(leakTarget);
        const [pid] = pidsWithMarker(marker, 'sleep');
        const [script] = childrenOf(host.pid!);
        return {
          hostHolds: new InheritableDescriptors(`/proc/${host.pid}`).held(),
          command: sorted(pid!),
          script: script === undefined ? [] : sorted(script.pid),
          scriptStderr: script === undefined ? undefined : readlinkSync(`/proc/${script.pid}/fd/2`),
        };
      } finally {
        host.kill('SIGKILL');
        for (const pid of pidsWithMarker(marker)) process.kill(pid, 'SIGKILL');
      }
    };
    const markerFor = (n: number) => `${process.pid}${(Date.now() % 100000) + n}`;

    it('is seen as holding one, and the chain then starts with the closing bash: nothing in it holds the descriptor', async () => {
      const marker = markerFor(13);
      const inv = scriptInvocation('sleep', [`1005.${marker}`], 40, 120, { closeInheritedFds: true });
      expect(inv.file).toBe(BASH_PATH);
      const seen = await run(inv.file, inv.args, marker, inv.argv, inv.env);
      expect(seen.hostHolds).toBe(true);
      expect(seen.command).toEqual([0, 1, 2]);
      expect(seen.script).not.toContain(LEAKED_FD);
      // Closing descriptors in a loop whose stderr bash had saved once sent script's stderr to /dev/null.
      expect(seen.scriptStderr).toMatch(/^(pipe|socket):/);
    });

    it.each<[WrapperKind, number]>([
      ['perl', 17],
      ['bash', 18],
    ])(
      'without the closing bash, the %s wrapper still shows the command only fds 0, 1, 2 (script holds it)',
      async (wrapper, n) => {
        // The belt for a descriptor opened after the host's check: the chain begins at setpriv.
        const marker = markerFor(n);
        const inv = scriptInvocation('sleep', [`1007.${marker}`], 40, 120, { closeInheritedFds: false, wrapper });
        expect(inv.file).toBe(SETPRIV_PATH);
        const seen = await run(inv.file, inv.args, marker, inv.argv, inv.env);
        expect(seen.command).toEqual([0, 1, 2]);
        expect(seen.script).toContain(LEAKED_FD);
      },
    );

    it('(the control) passes it to a command run under script alone', async () => {
      const control = `${markerFor(19)}1`;
      const plain = await run(
        SCRIPT_PATH,
        ['-q', '-e', '-E', 'never', '-c', `exec sleep 1006.${control}`, '/dev/null'],
        control,
      );
      expect(plain.command).toContain(LEAKED_FD);
    });
  });

  /** Starts the chain from a stand-in host (test/fixtures/host-spawn.cjs), then SIGKILLs that host. */
  async function killHostUnder(chain: { dieWithHost: boolean; guarded: boolean }, n: number) {
    const marker = `${process.pid}${(Date.now() % 100000) + n}`;
    const inv = scriptInvocation('sleep', [`1004.${marker}`], 40, 120, {
      closeInheritedFds: false,
      dieWithHost: chain.dieWithHost,
    });
    expect(inv.file).toBe(chain.dieWithHost ? SETPRIV_PATH : SCRIPT_PATH);
    const fixture = { ...inv, argv: inv.argv?.toString('base64'), ...(chain.guarded ? { guard: guardCommand() } : {}) };
    const host = spawn(process.execPath, [require.resolve('../fixtures/host-spawn.cjs'), JSON.stringify(fixture)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    host.stderr!.on('data', (d) => (err += d));
    const cleanUp = () => {
      host.kill('SIGKILL');
      const guardPid = /guard (\d+)/.exec(err)?.[1];
      if (guardPid !== undefined && isRunning(Number(guardPid))) process.kill(Number(guardPid), 'SIGKILL');
      for (const pid of pidsWithMarker(marker)) process.kill(pid, 'SIGKILL');
    };
    try {
      await waitFor(() => /pid \d+/.test(err) && pidsWithMarker(marker, 'sleep').length === 1, 'the PTY command runs');
    } catch (e) {
      cleanUp();
      throw e;
    }
    host.kill('SIGKILL');
    return { scriptPid: Number(/pid (\d+)/.exec(err)![1]), marker, cleanUp };
  }

  it.each([
    ['setpriv --pdeathsig', { dieWithHost: true, guarded: false }, 11],
    ['the orphan guard alone (no setpriv)', { dieWithHost: false, guarded: true }, 12],
  ])('ends the PTY when the host process is SIGKILLed: %s', async (_, chain, n) => {
    const { scriptPid, marker, cleanUp } = await killHostUnder(chain, n);
    try {
      await waitFor(
        () => !isRunning(scriptPid) && pidsWithMarker(marker).length === 0,
        'script and its command die with the host',
        5_000,
      );
    } finally {
      cleanUp();
    }
  });

  it('(the control) leaves script and its command running when neither is there', async () => {
    const { scriptPid, marker, cleanUp } = await killHostUnder({ dieWithHost: false, guarded: false }, 13);
    try {
      await sleep(1_000);
      expect(isRunning(scriptPid)).toBe(true);
      expect(pidsWithMarker(marker, 'sleep')).toHaveLength(1);
    } finally {
      cleanUp();
    }
  });
});
