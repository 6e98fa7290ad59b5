import fc from 'fast-check';
import { scriptInvocation, type WrapperKind } from '../../src/engine/script-invocation.js';
import { ARGV_ENV_PREFIX, type ArgvVia, DEFAULT_ARGV_VIA } from '../../src/engine/wrapper-argv.js';
import { runToExit } from '../support/pty-probe.js';

/**
 * The argv reaches the program byte for byte either way it travels: on the chain's fd 3 (Node) or in the
 * environment (Bun, whose fourth stdio pipe is unsound: see script-invocation.ts). Each word comes back as hex,
 * so nothing the terminal or the renderer does to text can hide a changed byte.
 */
const HEX_EACH_WORD =
  'for a; do printf %s "$a" | od -An -tx1 -v | tr -d " \\n"; echo "|"; done; env | grep -c LOCAL_PTY_';
const word = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', ' ', "'", '"', '\\', '$HOME', '$(id)', '`id`', '*', '-n', '--', '\n', '\t', '\x1b[31m', 'a b'),
);

const CASES: ReadonlyArray<[ArgvVia, WrapperKind]> = [
  ['channel', 'perl'],
  ['environment', 'perl'],
  ['channel', 'bash'],
  ['environment', 'bash'],
];

describe.each(CASES)('the argv via the %s, read by the %s wrapper', (argvVia, wrapper) => {
  it('property: every word reaches the program unchanged, and no variable of ours does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(word, { maxLength: 6 }), async (words) => {
        const { text, exit } = await runToExit({ command: 'sh', args: ['-c', HEX_EACH_WORD, 'sh', ...words] }, 10_000, {
          argvVia,
          wrapper,
        });
        expect(exit.exitCode).toBe(1);
        const lines = text.split('\n');
        expect(lines.slice(0, words.length)).toEqual(words.map((w) => `${Buffer.from(w, 'utf8').toString('hex')}|`));
        // grep -c printed 0 matches (and exited 1): the wrapper unset every variable it read.
        expect(lines[words.length]).toBe('0');
      }),
      { numRuns: 15 },
    );
  });

  it('gives the program fds 0, 1 and 2 only', async () => {
    const { text } = await runToExit({ command: 'ls', args: ['/proc/self/fd'] }, 10_000, { argvVia, wrapper });
    // ls's own listing holds the directory it reads (3) as well.
    expect(text.trim().split(/\s+/).map(Number).sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('how the chain gets the argv', () => {
  it('is the channel in Node, with a fourth pipe, and the environment otherwise, with none', () => {
    expect(DEFAULT_ARGV_VIA).toBe('channel');
    const viaEnv = scriptInvocation('printf', ['%s', 'x'], 40, 120, {
      closeInheritedFds: false,
      argvVia: 'environment',
    });
    expect(viaEnv.argv).toBeUndefined();
    expect(viaEnv.env[`${ARGV_ENV_PREFIX}0`]).toBe('printf');
    expect(viaEnv.env[`${ARGV_ENV_PREFIX}2`]).toBe('x');
    const viaChannel = scriptInvocation('printf', ['%s'], 40, 120, { closeInheritedFds: false, argvVia: 'channel' });
    expect(Object.keys(viaChannel.env).filter((k) => k.startsWith('LOCAL_PTY_'))).toEqual([]);
  });
});
