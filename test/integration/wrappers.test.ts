import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { fixedEnvironment } from '../../src/engine/environment.js';
import { F_GETFL, F_SETFL, O_NONBLOCK } from '../../src/engine/linux-abi.js';
import { perlWrapperRuns } from '../../src/engine/perl-wrapper.js';
import { defaultWrapper, scriptInvocation, type WrapperKind } from '../../src/engine/script-invocation.js';
import { BASH_PATH, PERL_PATH, SETPRIV_PATH } from '../../src/engine/system-paths.js';
import type { ArgvVia } from '../../src/engine/wrapper-argv.js';
import { outputChannel$ } from '../../src/streams/output-channel.js';
import { PtyProbe, runToExit } from '../support/pty-probe.js';

jest.setTimeout(60_000);

/**
 * The chain spawned by a stand-in host (test/fixtures/host-spawn.cjs), its output relayed: the host holds no
 * inheritable descriptor, so the chain starts at setpriv, as in a normal host (under jest the engine's own check
 * finds jest's descriptors and starts it with the closing bash, which would add variables of its own).
 */
function runChain(
  inv: ReturnType<typeof scriptInvocation>,
  options: { cwd?: string; oneWay?: boolean } = {},
): Promise<{ out: string; code: number | null }> {
  const host = spawn(
    process.execPath,
    [
      require.resolve('../fixtures/host-spawn.cjs'),
      JSON.stringify({ ...inv, argv: inv.argv?.toString('base64'), oneWay: options.oneWay ?? false }),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], ...(options.cwd === undefined ? {} : { cwd: options.cwd }) },
  );
  let out = '';
  host.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve) => host.on('close', (code) => resolve({ out, code })));
}

/** Every wrapper, each way the argv travels: the steps are the same, and so must be what the program sees. */
const CASES: ReadonlyArray<[WrapperKind, ArgvVia]> = [
  ['perl', 'channel'],
  ['perl', 'environment'],
  ['bash', 'channel'],
  ['bash', 'environment'],
];

describe('which wrapper runs', () => {
  it('is Perl on this machine (perl-base, x64), so the tests below run the default too', () => {
    expect(perlWrapperRuns()).toBe(true);
    expect(defaultWrapper()).toBe('perl');
  });

  it('names its interpreter as the SHELL of the chain only; the program gets /bin/sh', () => {
    const perl = scriptInvocation('true', [], 40, 120, { closeInheritedFds: false, wrapper: 'perl' });
    const bash = scriptInvocation('true', [], 40, 120, { closeInheritedFds: false, wrapper: 'bash' });
    expect(perl.env.SHELL).toBe(PERL_PATH);
    expect(bash.env.SHELL).toBe(BASH_PATH);
    // script runs `$SHELL -c COMMAND`: for Perl, -c compiles only, so the program is one BEGIN block.
    expect(perl.args[perl.args.indexOf('--command') + 1]).toMatch(/^-eBEGIN \{ .* \}$/s);
  });
});

describe.each(CASES)('the %s wrapper, argv via the %s', (wrapper, argvVia) => {
  const deps = { wrapper, argvVia };

  it('sizes the terminal and turns onlcr off before the program starts', async () => {
    const { text, exit } = await runToExit(
      {
        command: 'sh',
        args: ['-c', 'printf "a\\nb\\n"; stty size; stty -a | grep -o -- "-\\?onlcr"'],
        rows: 7,
        cols: 33,
      },
      10_000,
      deps,
    );
    expect(text).toBe('a\nb\n7 33\n-onlcr\n');
    expect(exit.exitCode).toBe(0);
  });

  it('runs the program as the session leader whose pid the host knows, with fds 0, 1 and 2 only', async () => {
    const probe = new PtyProbe(
      { command: 'sh', args: ['-c', 'echo "pid $$ sid $(ps -o sid= -p $$)"; ls -1 /proc/$$/fd; read x'] },
      undefined,
      deps,
    );
    try {
      const handle = await probe.started();
      const text = await probe.output(/\n0\n1\n2\n/);
      const [, pid, sid] = /pid (\d+) sid +(\d+)/.exec(text)!;
      expect(Number(sid)).toBe(Number(pid));
      expect(handle.terminalSid).toBe(Number(pid));
      // ls lists /proc/<sh>/fd from outside: what the program holds, and nothing more.
      expect(text).toMatch(/\n0\n1\n2\n$/);
    } finally {
      await probe.dispose();
    }
  });

  it('gives the program the fixed environment, its locale and its working directory, and nothing of ours', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-wrap-')));
    try {
      const inv = scriptInvocation('env', [], 40, 120, { closeInheritedFds: false, wrapper, argvVia });
      expect(inv.file).toBe(SETPRIV_PATH);
      const { out } = await runChain(inv, { cwd: dir });
      const env = Object.fromEntries(
        out
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(env).toMatchObject({ ...fixedEnvironment(), LANG: 'C.UTF-8', SHELL: '/bin/sh', PWD: dir });
      expect(env.HOME).toBe(userInfo().homedir);
      // bash adds SHLVL and `_` as any shell does for a program it starts; Perl adds nothing.
      const extra = Object.keys(env).filter((k) => !(k in fixedEnvironment()) && k !== 'PWD');
      expect(extra).toEqual(wrapper === 'bash' ? expect.arrayContaining(['SHLVL']) : []);
      expect(extra.filter((k) => !['SHLVL', '_'].includes(k))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says a command is not found, and exits 127', async () => {
    const { text, exit } = await runToExit({ command: 'no-such-command-local-pty' }, 10_000, deps);
    expect(exit.exitCode).toBe(127);
    expect(text).toMatch(/no-such-command-local-pty: (command )?not found\n$/);
  });

  it('says why a file cannot run (127 missing, 126 not executable), and runs a script without #! with sh', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-wrap-')));
    try {
      const plain = join(dir, 'plain.txt');
      writeFileSync(plain, 'echo hi\n');
      const missing = await runToExit({ command: join(dir, 'missing') }, 10_000, deps);
      expect(missing.exit.exitCode).toBe(127);
      expect(missing.text).toMatch(/missing: No such file or directory\n$/);
      const denied = await runToExit({ command: plain }, 10_000, deps);
      expect(denied.exit.exitCode).toBe(126);
      expect(denied.text).toMatch(/plain\.txt: (cannot execute: )?Permission denied\n$/);
      chmodSync(plain, 0o755);
      const ran = await runToExit({ command: plain }, 10_000, deps);
      expect(ran).toMatchObject({ text: 'hi\n', exit: { exitCode: 0 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each<WrapperKind>(['perl', 'bash'])(
  'the %s wrapper, with an argv channel the host closes once the argv is written (Bun)',
  (wrapper) => {
    // Bun gives stdio index 3 as a one-way pipe: the wrapper's pid report meets a closed end (EPIPE and SIGPIPE).
    const runOneWay = (command: string, args: readonly string[]) =>
      runChain(scriptInvocation(command, args, 40, 120, { closeInheritedFds: false, wrapper, argvVia: 'channel' }), {
        oneWay: true,
      });

    it('runs the program, which starts with the default SIGPIPE disposition', async () => {
      const { out, code } = await runOneWay('grep', ['^SigIgn', '/proc/self/status']);
      expect(code).toBe(0);
      const ignored = BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(out)![1]}`);
      // SIGPIPE is signal 13: bit 12 of the mask.
      expect(ignored & (1n << 12n)).toBe(0n);
    });

    it('lets a pipeline writer die of SIGPIPE as usual (yes | head -1)', async () => {
      const { out, code } = await runOneWay('bash', ['-c', 'yes | head -1; echo "${PIPESTATUS[*]}"']);
      expect(code).toBe(0);
      expect(out).toBe('y\n141 0\n');
    });
  },
);

describe('a chain started with SIGPIPE ignored', () => {
  // Node resets every signal in what it spawns; another host may not. The wrapper ignores SIGPIPE only around
  // its pid report, so the program must get what the wrapper started with, as under script alone.
  const sigpipeIgnored = (file: string, args: readonly string[], env: Record<string, string>) => {
    const chain = spawn(BASH_PATH, ['--norc', '--noprofile', '-c', `trap '' PIPE; exec "$0" "$@"`, file, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    chain.stdout!.on('data', (d) => (out += d));
    return new Promise<boolean>((resolve) =>
      chain.on('close', () => resolve((BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(out)![1]}`) & (1n << 12n)) !== 0n)),
    );
  };

  it('reaches the program as it reaches one under script alone, through either wrapper', async () => {
    const control = await sigpipeIgnored(
      '/usr/bin/script',
      ['-q', '-e', '-E', 'never', '-c', 'exec grep ^SigIgn /proc/self/status', '/dev/null'],
      { ...fixedEnvironment(), SHELL: '/bin/sh' },
    );
    for (const wrapper of ['perl', 'bash'] as const) {
      const inv = scriptInvocation('grep', ['^SigIgn', '/proc/self/status'], 40, 120, {
        closeInheritedFds: false,
        wrapper,
        argvVia: 'environment',
      });
      expect({ wrapper, ignored: await sigpipeIgnored(inv.file, inv.args, inv.env) }).toEqual({
        wrapper,
        ignored: control,
      });
    }
  });
});

describe('script’s stdout handed over non-blocking, as Bun hands over a socket', () => {
  // libuv makes a child's stdio blocking before the exec: a first link of the test's own sets O_NONBLOCK again on
  // fd 1, whose open file description the twin on fd 3 shares, so that the chain starts as it starts under Bun.
  const NONBLOCKING_FIRST = [
    `fcntl(STDOUT, ${F_SETFL}, fcntl(STDOUT, ${F_GETFL}, 0) | ${O_NONBLOCK}) or die "$!";`,
    'exec { $ARGV[0] } @ARGV;',
  ].join(' ');

  /** The flags of script's stdout as the program finds them, and the program's own descriptors. */
  async function seenByTheProgram(stdoutTwin: boolean): Promise<{ nonBlocking: boolean; programFds: string }> {
    const channel = await firstValueFrom(outputChannel$());
    const inv = scriptInvocation('sh', ['-c', 'grep ^flags: /proc/$PPID/fdinfo/1; ls -1 /proc/$$/fd'], 40, 120, {
      closeInheritedFds: false,
      wrapper: 'perl',
      argvVia: 'environment',
      stdoutTwin,
    });
    const scriptEnd = channel.childEnd!;
    const chain = spawn(PERL_PATH, ['-e', NONBLOCKING_FIRST, inv.file, ...inv.args], {
      env: inv.env,
      detached: true,
      stdio: ['pipe', scriptEnd, 'ignore', ...(inv.stdoutTwinFd === undefined ? [] : [scriptEnd])],
    });
    channel.closeChildEnd();
    let out = '';
    await new Promise<void>((resolve) => channel.listen({ chunk: (bytes) => (out += bytes.toString()), end: resolve }));
    chain.stdin!.destroy();
    channel.release();
    const [, flags, programFds] = /^flags:\s+([0-7]+)\n([\s\S]*)\n$/.exec(out) ?? [];
    return {
      nonBlocking: (Number.parseInt(flags ?? 'NaN', 8) & O_NONBLOCK) !== 0,
      programFds: programFds?.split('\n').join(' ') ?? out,
    };
  }

  it('is made blocking by the Perl wrapper through its twin on fd 3, which the program does not get', async () => {
    expect(
      scriptInvocation('true', [], 40, 120, { closeInheritedFds: false, argvVia: 'environment', stdoutTwin: true }),
    ).toMatchObject({ stdoutTwinFd: 3 });
    expect(await seenByTheProgram(true)).toEqual({ nonBlocking: false, programFds: '0 1 2' });
  });

  it('stays non-blocking without the twin (so the test above sees the wrapper’s work, not libuv’s)', async () => {
    expect(await seenByTheProgram(false)).toEqual({ nonBlocking: true, programFds: '0 1 2' });
  });

  it('takes the twin after the argv channel when the argv travels on fd 3, and only from the Perl wrapper', () => {
    expect(
      scriptInvocation('true', [], 40, 120, { closeInheritedFds: true, argvVia: 'channel', stdoutTwin: true }),
    ).toMatchObject({ stdoutTwinFd: 4, args: expect.arrayContaining([expect.stringContaining('(( n <= 4 ))')]) });
    expect(() =>
      scriptInvocation('true', [], 40, 120, { closeInheritedFds: false, wrapper: 'bash', stdoutTwin: true }),
    ).toThrow(/only the Perl wrapper/);
  });
});
