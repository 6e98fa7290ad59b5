import { MAX_WRITE_BYTES } from '../../src/limits.js';
import { sleep, waitFor } from '../../src/testkit/waits.js';
import { WaitedRead, WriteWaited } from '../../src/protocol/tool-results.js';
import { fails, HOSTS, ok, Session, useHost } from './fixtures/suite.js';

jest.setTimeout(60_000);

// Switches to the alternate screen, titles the window, draws one line, then echoes what it reads (the PTY does not).
const FULL_SCREEN = String.raw`printf '\033[?1049h\033[H\033]2;the title\007full screen\r\n'; exec cat`;

// Says its terminal's size at every SIGWINCH: a resize the program was sent shows in its output.
const SIZE_ON_WINCH = "trap 'echo size $(stty size)' WINCH; echo ready; while :; do sleep 0.05; done";

// Issue 13's fields reach the model through both adapters, and every answer parses with its strict protocol schema.
describe.each(HOSTS)('the screen through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('reads the screen, types keys by name and resizes; the answers carry exactly the declared fields', async () => {
    const s = new Session(ctx.host, 'ses_screen');
    const { id } = await s.spawn({ command: 'bash', args: ['-c', FULL_SCREEN], rows: 5, cols: 30 });
    const drawn = await waitFor(async () => {
      const read = await s.read(id, { screen: true });
      return read.screen.rows[0] === 'full screen' && read;
    }, 'the full-screen drawing');
    expect(drawn.screen).toEqual({
      rows: ['full screen', '', '', '', ''],
      size: { rows: 5, cols: 30 },
      cursor: { row: 1, col: 0, visible: true },
      alternateScreen: true,
      title: 'the title',
      incomplete: false,
    });

    // On the alternate screen every kind of read brings the screen along, unless told not to.
    const lines = await s.read(id);
    expect(lines.screen).toEqual(drawn.screen);
    expect(lines.screenNote).toMatch(/alternate screen/);
    expect((await s.read(id, { raw: true })).screen?.alternateScreen).toBe(true);
    expect((await s.read(id, { pattern: 'full' })).screen?.alternateScreen).toBe(true);
    const plain = await s.read(id, { screen: false });
    expect(plain.screen).toBeUndefined();
    expect(plain.screenNote).toBeUndefined();
    // A read from a cursor or with a wait gives lines: screen: true cannot be honoured there, and is refused (it gave
    // lines and no screen); screen: false holds there too.
    for (const other of [{ cursor: 'L1' }, { wait: { timeoutMs: 50 } }, { cursor: 'L1', wait: { timeoutMs: 50 } }]) {
      const given = Object.keys(other).join(' and ');
      expect(fails(await s.call('pty_read', { id, screen: true, ...other })).message).toMatch(
        new RegExp(
          `^pty_read: screen: true returns the visible screen as it is now, not lines; it cannot be combined with ${given}\\. .*Nothing was read\\.$`,
        ),
      );
    }
    const waitedPlain = ok(await s.call('pty_read', { id, screen: false, wait: { timeoutMs: 50 } }), WaitedRead);
    expect(waitedPlain.reason).toBe('timeout');
    expect(waitedPlain.screen).toBeUndefined();
    expect(waitedPlain.screenNote).toBeUndefined();
    expect(ok(await s.call('pty_read', { id, wait: { timeoutMs: 50 } }), WaitedRead).screen?.alternateScreen).toBe(
      true,
    );

    const asks = ctx.host.permissionLog.length;
    const typed = await s.type(id, { input: [{ text: 'ab' }, { key: 'Enter' }] });
    // What cat draws on the alternate screen is not in the lines (as a terminal keeps none of it): no line yet. The
    // cursor carries a mark: the screen it was handed out on, for a wait from it.
    expect(typed).toEqual({ id, bytesWritten: 3, status: 'running', cursor: expect.stringMatching(/^L1\.\d+$/) });
    expect(ctx.host.permissionLog.length).toBe(asks + 1);
    await waitFor(
      async () => (await s.read(id, { screen: true })).screen.rows[1] === 'ab',
      'cat to echo the typed line',
    );

    const resized = await s.type(id, { resize: { rows: 7, cols: 33 } });
    expect(resized).toEqual({
      id,
      bytesWritten: 0,
      status: 'running',
      size: { rows: 7, cols: 33 },
      cursor: expect.stringMatching(/^L1\.\d+$/),
    });
    // A resize types nothing: no prompt.
    expect(ctx.host.permissionLog.length).toBe(asks + 1);
    expect((await s.read(id, { screen: true })).screen.size).toEqual({ rows: 7, cols: 33 });

    // On the alternate screen a wait's pattern matches the screen's rows that changed during the call (the lines
    // leave the drawing out), and the wait brings the screen as it is then. Rows shown already are not the answer.
    const waited = await s.type(id, { input: [{ text: 'cd' }, { key: 'Enter' }], wait: { pattern: 'cd|ab|full' } });
    expect(waited).toMatchObject({
      reason: 'match',
      screenMatch: { screenRow: 2, text: 'cd' },
      lines: [],
      screenNote: expect.stringMatching(/alternate screen/),
    });
    expect('match' in waited).toBe(false);
    expect('screen' in waited && waited.screen?.rows.slice(0, 3)).toEqual(['full screen', 'ab', 'cd']);
  });

  it("answers a program's terminal queries as a terminal does, in raw input mode only", async () => {
    const s = new Session(ctx.host, 'ses_screen_queries');
    // In raw mode: the cursor's position after "abc" on row 2, device status, primary and secondary attributes.
    const asker = [
      'import os, select, sys, termios, tty',
      'fd = sys.stdin.fileno()',
      'saved = termios.tcgetattr(fd)',
      'def ask(query):',
      '    os.write(1, query)',
      "    got = b''",
      '    while select.select([fd], [], [], 2)[0]:',
      '        got += os.read(fd, 64)',
      "        if got[-1:] in (b'R', b'n', b'c'): break",
      '    return got',
      "os.write(1, b'first\\nabc')",
      'tty.setraw(fd)',
      "replies = [ask(q) for q in (b'\\x1b[6n', b'\\x1b[5n', b'\\x1b[c', b'\\x1b[>c')]",
      'termios.tcsetattr(fd, termios.TCSANOW, saved)',
      "print('\\nreplies', repr(replies))",
      // Line mode: a query gets no answer, which would be read as the start of the next line typed.
      "os.write(1, b'\\x1b[6nname? ')",
      "print('line', repr(sys.stdin.readline()))",
    ].join('\n');
    const { id } = await s.spawn({ command: 'python3', args: ['-c', asker], rows: 6, cols: 40 });
    // The whole line: print flushes "\nreplies" before the rest, and the unfinished line counts for a wait.
    const replies = ok(
      await s.call('pty_read', { id, wait: { pattern: '^replies \\[.*\\]$', timeoutMs: 10_000 } }),
      WaitedRead,
    );
    expect(replies.reason).toBe('match');
    expect(replies.match?.text).toBe("replies [b'\\x1b[2;4R', b'\\x1b[0n', b'\\x1b[?1;2c', b'\\x1b[>0;276;0c']");
    await waitFor(async () => (await s.read(id, { tail: true, limit: 1 })).lines[0]?.text === 'name? ', 'the prompt');
    // Time for an answer to the query to arrive, were one (wrongly) given.
    await sleep(1_000);
    // Input is not echoed: the answer follows the prompt on its line, and holds only what was typed.
    const typed = ok(await s.call('pty_write', { id, data: 'ada\\n', wait: { pattern: "line '" } }), WriteWaited);
    expect(typed.match?.text).toBe("name? line 'ada\\n'");
  });

  it('types each key of an input list as a key press of its own, as a person does', async () => {
    const s = new Session(ctx.host, 'ses_presses');
    // The Node REPL completes on Tab and lists on a second; both in one read it took for pasted text.
    const repl = await s.spawn({ command: process.execPath, args: ['-i'], wait: { pattern: '> ?$' } });
    const completed = ok(
      await s.call('pty_write', {
        id: repl.id,
        input: [{ text: 'process.ver' }, { key: 'Tab', times: 2 }],
        wait: { pattern: 'process\\.versions', timeoutMs: 10_000 },
      }),
      WriteWaited,
    );
    expect(completed.reason).toBe('match');
    // vim leaves insert mode at an Esc typed after text at once, not after waiting to tell it from a key's sequence.
    const vim = await s.spawn({
      command: 'vim',
      args: ['-u', 'NONE', '-N'],
      rows: 6,
      cols: 40,
      wait: { quietMs: 300 },
    });
    const escaped = ok(
      await s.call('pty_write', { id: vim.id, input: [{ text: 'ohello' }, { key: 'Esc' }], wait: { quietMs: 150 } }),
      WriteWaited,
    );
    expect(escaped.waitedMs).toBeLessThan(800);
    const screen = (await s.read(vim.id, { screen: true })).screen;
    expect(screen.rows.join('\n')).toContain('hello');
    expect(screen.rows.join('\n')).not.toContain('-- INSERT --');
    await s.kill(repl.id);
    await s.kill(vim.id);
    // A program that ends after the first key: the keys that went are reported, with how the program ended.
    const asks = await s.spawn({
      command: 'bash',
      args: ['-c', 'read -n1 -p "Continue? [y/N] " k; echo; echo "got $k"'],
      wait: { pattern: '\\[y/N\\] $' },
    });
    const answered = ok(
      await s.call('pty_write', {
        id: asks.id,
        input: [{ text: 'y' }, { key: 'Enter' }, { key: 'Down', times: 20 }],
        wait: { pattern: 'got y' },
      }),
      WriteWaited,
    );
    expect(['match', 'exit']).toContain(answered.reason);
    expect(answered.lines.map((l) => l.text)).toContain('got y');
    expect(answered.bytesWritten).toBeGreaterThanOrEqual(1);
  });

  it('a write refused by the user or by its input resizes nothing: no new size, no SIGWINCH', async () => {
    const s = new Session(ctx.host, 'ses_resize_refused');
    const { id } = await s.spawn({
      command: 'bash',
      args: ['-c', SIZE_ON_WINCH],
      rows: 5,
      cols: 30,
      wait: { pattern: '^ready$' },
    });
    const resize = { rows: 7, cols: 33 };
    ctx.host.permissions.decide = (record) => (record.metadata['tool'] === 'pty_write' ? 'reject' : 'allow');
    fails(await s.call('pty_write', { id, data: 'x', resize }));
    ctx.host.permissions.decide = () => 'allow';
    const badKey = fails(await s.call('pty_write', { id, input: [{ text: 'a' }, { key: 'NoSuchKey' }], resize }));
    expect(badKey.message).toMatch(/NoSuchKey/);
    const tooLong = fails(
      await s.call('pty_write', { id, input: [{ text: 'a'.repeat(MAX_WRITE_BYTES) }, { key: 'Enter' }], resize }),
    );
    expect(tooLong.message).toMatch(/MAX_WRITE_BYTES/);
    // A resize alone in a call the host has already cancelled.
    fails(await s.call('pty_write', { id, resize }, { signal: AbortSignal.abort() }));
    await sleep(300);
    expect((await s.read(id, { screen: true })).screen.size).toEqual({ rows: 5, cols: 30 });
    expect((await s.read(id)).lines.map((l) => l.text)).toEqual(['ready']);

    // The control: an allowed write with a resize does reach the program.
    expect(await s.type(id, { data: 'x', resize })).toMatchObject({ size: resize });
    await waitFor(
      async () => (await s.read(id)).lines.some((l) => l.text === 'size 7 33'),
      'the program to see its new size',
    );
  });
});
