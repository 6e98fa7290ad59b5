import { describe, expect, it, jest } from '@jest/globals';
import { sleep } from '../../src/testkit/waits.js';
import { useScreenRig } from '../support/screen-rig.js';

jest.setTimeout(90_000);

const ctx = useScreenRig();

async function linesUntil(
  id: string,
  done: (lines: string[]) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await ctx.rig.call('pty_read', { id, tail: true, limit: 2_000, screen: false });
    const lines = (read.lines as { text: string }[]).map((l) => l.text);
    if (done(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(lines.slice(-10))}`);
    await sleep(50);
  }
}

/** Puts the terminal in raw mode (application cursor keys on with "app"), then prints the bytes between each < and >. */
const RAW_READER = `
import os, sys, tty
tty.setraw(0)
if sys.argv[1] == "app":
    os.write(1, b"\\x1b[?1h")
os.write(1, b"READY\\n")
buf = b""
while True:
    buf += os.read(0, 4096)
    while b">" in buf:
        start = buf.index(b"<")
        end = buf.index(b">", start)
        os.write(1, ("KEY " + buf[start + 1:end].hex() + "\\n").encode())
        buf = buf[end + 1:]
        if buf.startswith(b"."):
            os.write(1, b"DONE\\n")
            sys.exit(0)
`;

/** What xterm sends for each key (hex), in normal and application cursor key mode: written out, not computed by our codec. */
const EXPECTED_KEYS: [name: string, normal: string, application: string][] = [
  ['Enter', '0d', '0d'],
  ['Tab', '09', '09'],
  ['Esc', '1b', '1b'],
  ['Backspace', '7f', '7f'],
  ['Space', '20', '20'],
  ['Up', '1b5b41', '1b4f41'],
  ['Down', '1b5b42', '1b4f42'],
  ['Right', '1b5b43', '1b4f43'],
  ['Left', '1b5b44', '1b4f44'],
  ['Home', '1b5b48', '1b4f48'],
  ['End', '1b5b46', '1b4f46'],
  ['Insert', '1b5b327e', '1b5b327e'],
  ['Delete', '1b5b337e', '1b5b337e'],
  ['PageUp', '1b5b357e', '1b5b357e'],
  ['PageDown', '1b5b367e', '1b5b367e'],
  ['F1', '1b4f50', '1b4f50'],
  ['F2', '1b4f51', '1b4f51'],
  ['F3', '1b4f52', '1b4f52'],
  ['F4', '1b4f53', '1b4f53'],
  ['F5', '1b5b31357e', '1b5b31357e'],
  ['F6', '1b5b31377e', '1b5b31377e'],
  ['F7', '1b5b31387e', '1b5b31387e'],
  ['F8', '1b5b31397e', '1b5b31397e'],
  ['F9', '1b5b32307e', '1b5b32307e'],
  ['F10', '1b5b32317e', '1b5b32317e'],
  ['F11', '1b5b32337e', '1b5b32337e'],
  ['F12', '1b5b32347e', '1b5b32347e'],
  ['C-c', '03', '03'],
  ['C-a', '01', '01'],
  ['C-Space', '00', '00'],
  ['M-x', '1b78', '1b78'],
  ['C-M-x', '1b18', '1b18'],
  ['S-Tab', '1b5b5a', '1b5b5a'],
  ['C-Left', '1b5b313b3544', '1b5b313b3544'],
  ['M-Up', '1b5b313b3341', '1b5b313b3341'],
  ['S-Right', '1b5b313b3243', '1b5b313b3243'],
  ['C-Delete', '1b5b333b357e', '1b5b333b357e'],
  ['S-F1', '1b5b313b3250', '1b5b313b3250'],
];

describe('named keys reach the program as a terminal sends them', () => {
  it.each([
    ['normal', 1],
    ['app', 2],
  ] as const)('every name, %s cursor key mode, as a raw-mode reader receives it', async (mode, column) => {
    const id = await ctx.rig.spawn('python3', ['-c', RAW_READER, mode], 24, 80);
    await linesUntil(id, (l) => l.includes('READY'), 'the reader');
    const input = EXPECTED_KEYS.flatMap(([name]) => [{ text: '<' }, { key: name }, { text: '>' }]);
    await ctx.rig.call('pty_write', { id, input: [...input, { text: '.' }] });
    const lines = await linesUntil(id, (l) => l.includes('DONE'), 'every key');
    const received = lines.filter((l) => l.startsWith('KEY ')).map((l) => l.slice(4));
    expect(received).toEqual(EXPECTED_KEYS.map((k) => k[column]));
  });

  it('the prompt names the keys and shows the exact bytes', async () => {
    const id = await ctx.rig.spawn('cat', [], 24, 80);
    await ctx.rig.call('pty_write', { id, input: [{ text: 'ab' }, { key: 'C-c' }] });
    const prompt = ctx.rig.asked.at(-1)!;
    expect(prompt.title).toContain('"ab" <C-c> (bytes: ab\\x03)');
    expect(prompt.metadata).toMatchObject({ keys: '"ab" <C-c>', bytes: 'ab\\x03', byteCount: 3 });
    expect(prompt.patterns).toEqual(['pty_write ab\\x03']);
  });

  it('refuses unknown keys, data with input, and an empty write, with the reason and nothing written', async () => {
    const id = await ctx.rig.spawn('cat', [], 24, 80);
    const asked = ctx.rig.asked.length;
    await expect(ctx.rig.call('pty_write', { id, input: [{ key: 'Ctrl-C' }] })).rejects.toThrow(
      /key "Ctrl-C" is not a key name\. Known keys: Enter, Tab/,
    );
    await expect(ctx.rig.call('pty_write', { id, data: 'x', input: [{ text: 'y' }] })).rejects.toThrow(
      /either data .* or input .*, not both/,
    );
    await expect(ctx.rig.call('pty_write', { id })).rejects.toThrow(/nothing to do/);
    await expect(ctx.rig.call('pty_write', { id, input: [{ text: 'a', key: 'Enter' }] })).rejects.toThrow(
      /exactly one of "text" or "key"/,
    );
    await expect(ctx.rig.call('pty_write', { id, input: [{ key: 'Up', times: 1000 }] })).rejects.toThrow(
      /from 1 to 100/,
    );
    expect(ctx.rig.asked.length).toBe(asked);
    expect((await ctx.rig.call('pty_read', { id })).totalLines).toBe(0);
  });
});

describe('answers to terminal queries', () => {
  it('come before anything typed after the query arrived, as a terminal answers at once', async () => {
    // Asks for the cursor and prompts in one write, then reports every byte it reads, in order.
    const asker = [
      'import os, sys, tty, time',
      'tty.setraw(0)',
      "os.write(1, b'\\x1b[6nready> ')",
      "got = b''",
      'end = time.time() + 1.5',
      'while time.time() < end and not got.endswith(b"abc"):',
      '    got += os.read(0, 64)',
      "os.write(1, b'\\r\\ngot ' + repr(got).encode() + b'\\r\\n')",
    ].join('\n');
    const { id } = await ctx.rig.call('pty_spawn', {
      command: 'python3',
      args: ['-c', asker],
      rows: 5,
      cols: 60,
      description: 'query order',
      wait: { pattern: 'ready> $' },
    });
    // At once, as an agent types after seeing the prompt: the answer is still being worked out (stty, the screen).
    const typed = await ctx.rig.call('pty_write', { id, data: 'abc', wait: { pattern: '^got ' } });
    expect(typed.match.text).toBe("got b'\\x1b[1;8Rabc'");
  });
});

describe('the screen in pty_read', () => {
  it('comes by itself while less is on the alternate screen, says so, and goes when less quits', async () => {
    const id = await ctx.rig.spawn('bash', ['-c', 'seq 1 100 | less; echo back in the log'], 10, 40);
    const first = await ctx.rig.settled(id, (s) => s.rows[0] === '1', 'less');
    expect(first.alternateScreen).toBe(true);
    const plain = await ctx.rig.call('pty_read', { id });
    expect(plain.screen.rows).toEqual(first.rows);
    expect(plain.screenNote).toMatch(/alternate screen/);
    expect(plain.lines).toBeDefined();
    expect((await ctx.rig.call('pty_read', { id, screen: false })).screen).toBeUndefined();
    await ctx.rig.call('pty_write', { id, input: [{ text: 'q' }] });
    await linesUntil(id, (l) => l.includes('back in the log'), 'less to quit');
    const after = await ctx.rig.call('pty_read', { id });
    expect(after.screen).toBeUndefined();
    expect((await ctx.rig.call('pty_read', { id, screen: true })).screen.alternateScreen).toBe(false);
  });

  it('screen: true refuses line options, and reads after the program ended', async () => {
    const id = await ctx.rig.spawn('printf', ['\\033]2;done title\\007hello\\n'], 5, 20);
    await expect(ctx.rig.call('pty_read', { id, screen: true, tail: true })).rejects.toThrow(
      /screen: true .* takes no tail/,
    );
    await linesUntil(id, (l) => l.includes('hello'), 'printf');
    await sleep(200);
    const read = await ctx.rig.call('pty_read', { id, screen: true });
    expect(read.screen).toMatchObject({
      rows: ['hello', '', '', '', ''],
      title: 'done title',
      size: { rows: 5, cols: 20 },
      incomplete: false,
    });
  });
});

describe('live resize', () => {
  it('stty size inside reports the new size; no prompt for a resize alone', async () => {
    const id = await ctx.rig.spawn('bash', ['--norc', '--noprofile'], 24, 80);
    const asked = ctx.rig.asked.length;
    const result = await ctx.rig.call('pty_write', { id, resize: { rows: 33, cols: 101 } });
    expect(result).toMatchObject({ bytesWritten: 0, size: { rows: 33, cols: 101 } });
    expect(ctx.rig.asked.length).toBe(asked);
    await ctx.rig.call('pty_write', { id, data: 'stty size\n' });
    await linesUntil(id, (l) => l.includes('33 101'), 'stty size');
    expect((await ctx.rig.screen(id)).size).toEqual({ rows: 33, cols: 101 });
  });

  it('the program gets SIGWINCH: vim redraws to the new size, as tmux shows it', async () => {
    const { ours, theirs } = ctx.rig.sides({ 'notes.txt': 'one\ntwo\nthree\n' });
    const id = await ctx.rig.spawn('vim', ['-u', 'NONE', '-N', 'notes.txt'], 8, 40, ours);
    const oracle = ctx.rig.oracle(theirs, 8, 40, ['vim', '-u', 'NONE', '-N', 'notes.txt']);
    await ctx.rig.settled(id, (s) => s.rows[0] === 'one', 'vim');
    await oracle.settled((r) => r[0] === 'one', 'vim');
    await ctx.rig.call('pty_write', { id, resize: { rows: 14, cols: 50 } });
    oracle.resize(14, 50);
    const redrawn = (rows: readonly string[]) =>
      rows.length === 14 && rows[13]!.includes('notes.txt') === false && rows[12] === '~';
    const ourScreen = await ctx.rig.settled(id, (s) => redrawn(s.rows), 'vim redraw');
    expect(ourScreen.size).toEqual({ rows: 14, cols: 50 });
    expect(ourScreen.rows).toEqual(await oracle.settled(redrawn, 'vim redraw'));
  });

  it('a scroll region set before a resize is gone after it, on a screen restarted past a flood, as tmux shows', async () => {
    const script = [
      'import sys',
      'w = sys.stdout.write',
      "w('\\x1b[2;4rready\\n'); sys.stdout.flush()",
      'sys.stdin.readline()',
      'for i in range(40000):',
      "    w(f'flood line {i:06d} ' + 'x' * 40 + '\\n')",
      "w('\\x1b[H\\x1b[2J' + '\\n'.join(str(k) for k in range(1, 12)) + ' done')",
      'sys.stdout.flush()',
      'sys.stdin.readline()',
    ].join('\n');
    const program = ['python3', '-c', script];
    const id = await ctx.rig.spawn(program[0]!, program.slice(1), 8, 40);
    const oracle = ctx.rig.oracle(ctx.rig.dir, 8, 40, program);
    const ready = (rows: readonly string[]) => rows.includes('ready');
    await ctx.rig.settled(id, (s) => ready(s.rows), 'ready');
    await oracle.settled(ready, 'ready');
    await ctx.rig.call('pty_write', { id, resize: { rows: 10, cols: 40 } });
    oracle.resize(10, 40);
    await ctx.rig.call('pty_write', { id, input: [{ key: 'Enter' }] });
    oracle.send(['Enter']);
    // No screen read during the flood: the first one after it restarts past the dropped output.
    await ctx.rig.call('pty_read', { id, limit: 1, wait: { pattern: ' done$', timeoutMs: 30_000 } });
    const done = (rows: readonly string[]) => rows.some((r) => r.endsWith(' done'));
    const ourScreen = await ctx.rig.settled(id, (s) => done(s.rows), 'redraw', 30_000);
    // The whole screen scrolled (the region went with the resize): the last ten of the eleven lines show.
    expect(ourScreen.rows[0]).toBe('2');
    expect(ourScreen.rows).toEqual(await oracle.settled(done, 'redraw', 30_000));
  });

  it('refuses sizes out of bounds and an ended PTY, changing nothing', async () => {
    const id = await ctx.rig.spawn('true', [], 24, 80);
    await expect(ctx.rig.call('pty_write', { id, resize: { rows: 0, cols: 80 } })).rejects.toThrow(
      /resize\.rows: must be at least 1/,
    );
    await expect(ctx.rig.call('pty_write', { id, resize: { rows: 24, cols: 1001 } })).rejects.toThrow(
      /resize\.cols: must be at most 1000/,
    );
    await linesUntil(id, () => true, 'start');
    for (let i = 0; i < 100 && (await ctx.rig.call('pty_list', {})).ptys[0].status === 'running'; i++) await sleep(50);
    await expect(ctx.rig.call('pty_write', { id, resize: { rows: 30, cols: 80 } })).rejects.toThrow(
      /takes no input|only a running terminal/,
    );
  });
});

describe('laziness', () => {
  const FLOOD =
    'import sys\nsys.stdout.write("\\x1b[H\\x1b[2JHEADER\\n")\nfor i in range(%LINES%): sys.stdout.write("flood line %07d with some text to make it longer\\n" % i)\n%END%\nsys.stdout.flush()\nimport time\ntime.sleep(60)\n';
  const flood = (lines: number, end: string) => FLOOD.replace('%LINES%', String(lines)).replace('%END%', end);
  // ~4.4 MiB of lines: more than four times the raw output that is kept.
  const LINES = 80_000;

  it('a flood of several MiB, then a screen read: the restart point after it is found and the screen is whole', async () => {
    const id = await ctx.rig.spawn(
      'python3',
      ['-c', flood(LINES, 'sys.stdout.write("\\x1b[H\\x1b[2JFINAL SCREEN\\nsecond row")')],
      6,
      60,
    );
    // Started before the flood, then left behind by it.
    await ctx.rig.screen(id);
    await linesUntil(id, (l) => l.at(-1) === 'second row', 'the flood', 60_000);
    const screen = await ctx.rig.screen(id);
    expect(screen.rows).toEqual(['FINAL SCREEN', 'second row', '', '', '', '']);
    expect(screen.incomplete).toBe(false);
  });

  it('a flood with no reset point after the header is flagged incomplete', async () => {
    const id = await ctx.rig.spawn('python3', ['-c', flood(LINES, 'sys.stdout.write("tail end")')], 6, 60);
    await linesUntil(id, (l) => l.at(-1) === 'tail end', 'the flood', 60_000);
    const read = await ctx.rig.call('pty_read', { id, screen: true });
    expect(read.screen.incomplete).toBe(true);
    expect(read.screen.note).toMatch(/parts drawn earlier may be missing/);
    expect(read.screen.rows.at(-1)).toBe('tail end');
  });

  it('ingest is as fast with the screen in use as without (the emulator is not in the ingest path)', async () => {
    const timeFlood = async (withScreen: boolean) => {
      const id = await ctx.rig.spawn('python3', ['-c', flood(LINES, 'sys.stdout.write("END")')], 24, 80);
      if (withScreen) await ctx.rig.screen(id);
      const start = Date.now();
      await linesUntil(id, (l) => l.at(-1) === 'END', 'the flood', 60_000);
      const ms = Date.now() - start;
      await ctx.rig.call('pty_kill', { id, cleanup: true });
      return ms;
    };
    const runs = process.env.LPTY_FLOOD_RUNS === undefined ? 2 : Number(process.env.LPTY_FLOOD_RUNS);
    let without = 0;
    let withScreen = 0;
    for (let i = 0; i < runs; i++) {
      without += await timeFlood(false);
      withScreen += await timeFlood(true);
    }
    process.stdout.write(
      `[laziness] 4.4 MiB flood ingested in ${without} ms without the screen, ${withScreen} ms with it\n`,
    );
    // Loose: a shared 2-core machine; an emulator in the path would take ~4x (it parses at 15-23 MiB/s).
    expect(withScreen).toBeLessThan(without * 2 + 1_000);
  });
});
