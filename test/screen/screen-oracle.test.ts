import { describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScreenView } from '../../src/protocol/tool-results.js';
import { useScreenRig, type TmuxOracle } from '../support/screen-rig.js';

jest.setTimeout(60_000);

const ROWS = 12;
const COLS = 60;

const ctx = useScreenRig();

describe('the screen agrees with tmux row for row', () => {
  it('vim: open, edit by named keys, :wq; the file is right on both sides', async () => {
    const { ours, theirs } = ctx.rig.sides({ 'notes.txt': 'alpha\nbeta\ngamma\n' });
    const id = await ctx.rig.spawn('vim', ['-u', 'NONE', '-N', 'notes.txt'], ROWS, COLS, ours);
    const oracle = ctx.rig.oracle(theirs, ROWS, COLS, ['vim', '-u', 'NONE', '-N', 'notes.txt']);
    const opened = await ctx.rig.settled(id, (s) => s.rows[0] === 'alpha', 'vim open');
    const tmuxOpened = await oracle.settled((r) => r[0] === 'alpha', 'vim open');
    expect(opened.alternateScreen).toBe(true);
    expect(opened.rows).toEqual(tmuxOpened);

    await ctx.rig.call('pty_write', {
      id,
      input: [
        { key: 'Down' },
        { text: 'dd' },
        { key: 'End' },
        { key: 'Home' },
        { text: 'i' },
        { text: 'INSERTED ' },
        { key: 'Esc' },
      ],
    });
    oracle.send(['Down', 'd', 'd', 'End', 'Home', 'i']);
    oracle.send(['INSERTED '], true);
    oracle.send(['Escape']);
    // vim leaves insert mode once its escape timeout has passed: wait for the mode line to clear on both sides.
    const normalMode = (rows: readonly string[]) =>
      rows[1]?.includes('INSERTED') === true && !rows[ROWS - 1]?.includes('INSERT');
    const edited = await ctx.rig.settled(id, (s) => normalMode(s.rows), 'vim edit');
    const tmuxEdited = await oracle.settled(normalMode, 'vim edit');
    expect(edited.rows).toEqual(tmuxEdited);
    expect(edited.cursor).toMatchObject({ row: 1 });

    await ctx.rig.call('pty_write', { id, input: [{ text: ':wq' }, { key: 'Enter' }] });
    oracle.send([':wq', 'Enter']);
    const file = (dir: string) => readFileSync(join(dir, 'notes.txt'), 'utf8');
    await waitFor(
      () => file(ours).includes('INSERTED') && file(theirs).includes('INSERTED'),
      'vim to write both files',
    );
    expect(file(ours)).toBe('alpha\nINSERTED gamma\n');
    expect(file(ours)).toBe(file(theirs));
  });

  it('less: page down and search', async () => {
    const text = `${Array.from({ length: 200 }, (_, i) => `line ${i + 1} of the file`).join('\n')}\n`;
    const { ours, theirs } = ctx.rig.sides({ 'long.txt': text });
    const id = await ctx.rig.spawn('less', ['long.txt'], ROWS, COLS, ours);
    const oracle = ctx.rig.oracle(theirs, ROWS, COLS, ['less', 'long.txt']);
    const first = (rows: readonly string[]) => rows[0] === 'line 1 of the file';
    expect((await ctx.rig.settled(id, (s) => first(s.rows), 'less open')).rows).toEqual(
      await oracle.settled(first, 'less open'),
    );

    await ctx.rig.call('pty_write', { id, input: [{ key: 'PageDown' }] });
    oracle.send(['NPage']);
    const paged = (rows: readonly string[]) => rows[0] === 'line 12 of the file';
    const ourPage = await ctx.rig.settled(id, (s) => paged(s.rows), 'less page down');
    expect(ourPage.rows).toEqual(await oracle.settled(paged, 'less page down'));
    expect(ourPage.alternateScreen).toBe(true);

    await ctx.rig.call('pty_write', { id, input: [{ text: '/line 150 ' }, { key: 'Enter' }] });
    oracle.send(['/line 150 ', 'Enter']);
    const found = (rows: readonly string[]) => rows[0] === 'line 150 of the file';
    expect((await ctx.rig.settled(id, (s) => found(s.rows), 'less search')).rows).toEqual(
      await oracle.settled(found, 'less search'),
    );
    await ctx.rig.call('pty_write', { id, input: [{ text: 'q' }] });
  });

  it('top: the header rows and column titles', async () => {
    const id = await ctx.rig.spawn('top', [], ROWS, COLS);
    const oracle = ctx.rig.oracle(ctx.rig.dir, ROWS, COLS, ['top']);
    const drawn = (rows: readonly string[]) => rows.some((r) => /^\s*PID USER/.test(r));
    // Only the shape: the numbers move between the two tops, and between two looks.
    const shape = (rows: readonly string[]) => rows.slice(0, 7).map((r) => r.replace(/[^A-Za-z%()/:]+/g, ' ').trim());
    const ours = await ctx.rig.settled(id, (s) => drawn(s.rows), 'top', 15_000, 0);
    const theirs = await oracle.settled(drawn, 'top', 15_000, 0);
    expect(shape(ours.rows)).toEqual(shape(theirs));
    expect(ours.rows.findIndex((r) => /^\s*PID USER/.test(r))).toBe(theirs.findIndex((r) => /^\s*PID USER/.test(r)));
    await ctx.rig.call('pty_write', { id, input: [{ text: 'q' }] });
  });

  it('a python curses program: boxes, positioned text and an arrow-key menu', async () => {
    const program = [
      'import curses',
      'def main(w):',
      '    curses.curs_set(0)',
      '    items = ["apples", "pears", "plums"]',
      '    sel = 0',
      '    while True:',
      '        w.erase()',
      '        w.box()',
      '        w.addstr(1, 2, "Pick one (arrows, q):")',
      '        for i, item in enumerate(items):',
      '            w.addstr(3 + i, 4, ("> " if i == sel else "  ") + item)',
      '        w.addstr(9, 30, "bottom right-ish")',
      '        w.refresh()',
      '        k = w.getch()',
      '        if k == curses.KEY_DOWN: sel = min(sel + 1, 2)',
      '        elif k == curses.KEY_UP: sel = max(sel - 1, 0)',
      '        elif k == ord("q"): return',
      'curses.wrapper(main)',
      '',
    ].join('\n');
    const { ours, theirs } = ctx.rig.sides({ 'menu.py': program });
    const id = await ctx.rig.spawn('python3', ['menu.py'], ROWS, COLS, ours);
    const oracle = ctx.rig.oracle(theirs, ROWS, COLS, ['python3', 'menu.py']);
    const shown = (rows: readonly string[]) => rows.some((r) => r.includes('> apples'));
    const first = await ctx.rig.settled(id, (s) => shown(s.rows), 'curses menu');
    expect(first.rows).toEqual(await oracle.settled(shown, 'curses menu'));
    expect(first.cursor.visible).toBe(false);

    await ctx.rig.call('pty_write', { id, input: [{ key: 'Down', times: 2 }, { key: 'Up' }] });
    oracle.send(['Down', 'Down', 'Up']);
    const moved = (rows: readonly string[]) => rows.some((r) => r.includes('> pears'));
    expect((await ctx.rig.settled(id, (s) => moved(s.rows), 'curses menu moved')).rows).toEqual(
      await oracle.settled(moved, 'curses menu moved'),
    );
    await ctx.rig.call('pty_write', { id, input: [{ text: 'q' }] });
  });

  it('a flood of colored, wide and combining lines, first read once it is over, shows what tmux shows', async () => {
    // About 150 KB before the first screen read: entered late, from its end, past characters of unknown width.
    const script = [
      'import sys, time',
      'for i in range(3000):',
      "    sys.stdout.write(f'\\x1b[32m\\u2713\\x1b[0m \\u4e2d\\u6587 cafe\\u0301 \\u2500\\u2500 {i} ' + 'x' * (i % 70) + '\\n')",
      "sys.stdout.write('done')",
      'sys.stdout.flush()',
      'time.sleep(60)',
    ];
    const { ours: ourScreen, tmux } = await pythonOnBoth(script, 'flood', (rows) => rows.some((r) => r === 'done'));
    expect(ourScreen.rows).toEqual(tmux);
    expect(ourScreen.rows.filter((r) => r.includes('\u4e2d\u6587')).length).toBeGreaterThan(2);
  });

  it('a redraw after a flood that outran the kept output, with modes set before it, shows what tmux shows', async () => {
    // The modes are set once, then 2.3 MB of lines drop them from the kept output: the first screen read restarts at
    // the clear, and must give them back (terminal-modes.ts) to show the line drawing, the cleared tab stops, the
    // line that does not wrap and the scroll region as a terminal does. (Only line-drawing characters that tmux and
    // xterm.js map alike are printed: tmux leaves `b` to `e` as they are, xterm.js shows control pictures.)
    const script = [
      'import sys, time',
      'w = sys.stdout.write',
      "w('\\x1b[?7l\\x1b)0\\x0e\\x1b[3;6r\\x1b[3g')",
      'for i in range(40000):',
      "    w(f'flood line {i:06d} ' + 'x' * 40 + '\\n')",
      "w('\\x1b[H\\x1b[2Jlqqk\\tT\\r\\n' + 'z' * 80 + '\\x1b[6;1Hx\\nq\\nm\\x0f\\x1b[12;1Hdone')",
      'sys.stdout.flush()',
      'time.sleep(60)',
    ];
    const done = (rows: readonly string[]) => rows.at(-1) === 'done';
    const { ours: ourScreen, tmux } = await pythonOnBoth(script, 'redraw', done, 30_000);
    expect(ourScreen.incomplete).toBe(false);
    expect(ourScreen.rows).toEqual(tmux);
    // What the modes make of it, so that the test cannot pass by both sides missing them.
    expect(ourScreen.rows[0]).toBe(`\u250c\u2500\u2500\u2510${' '.repeat(COLS - 5)}T`);
  });

  it('emoji take two columns as tmux and wcwidth say: lines wrap, and the cursor stands, where the program meant', async () => {
    // 30 emoji and END on a 60-column terminal: 63 columns, so it wraps after the 30th emoji, END alone below.
    const script = [
      'import sys, time',
      "sys.stdout.write('\\U0001F44D' * 30 + 'END\\n' + '\\U0001F44D\\U0001F389|done')",
      'sys.stdout.flush()',
      'time.sleep(60)',
    ];
    const done = (rows: readonly string[]) => rows.some((r) => r.endsWith('|done'));
    const { ours: ourScreen, tmux, oracle } = await pythonOnBoth(script, 'emoji', done);
    expect(ourScreen.rows).toEqual(tmux);
    expect(ourScreen.rows[1]).toBe('END');
    const cursorX = Number(oracle.tmux(['display', '-p', '#{cursor_x}']).trim());
    // Two emoji (four columns), a bar and "done": the cursor is at column 9, as in tmux.
    expect(ourScreen.cursor.col).toBe(9);
    expect(ourScreen.cursor.col).toBe(cursorX);
  });

  it('a shell prompt after clear', async () => {
    const shell = ['bash', '--norc', '--noprofile', '-i'];
    const id = await ctx.rig.spawn(shell[0]!, shell.slice(1), ROWS, COLS);
    const oracle = ctx.rig.oracle(ctx.rig.dir, ROWS, COLS, shell);
    const prompt = (rows: readonly string[]) => rows.some((r) => /[$#]$/.test(r));
    await ctx.rig.settled(id, (s) => prompt(s.rows), 'bash prompt');
    await oracle.settled(prompt, 'bash prompt');
    for (const line of ['seq 1 30', 'clear', 'echo after clear']) {
      await ctx.rig.call('pty_write', { id, input: [{ text: line }, { key: 'Enter' }] });
      oracle.send([line], true);
      oracle.send(['Enter']);
    }
    const done = (rows: readonly string[]) => rows[1] === 'after clear' && /[$#]$/.test(rows[2] ?? '');
    const ourScreen = await ctx.rig.settled(id, (s) => done(s.rows), 'cleared shell');
    expect(ourScreen.rows).toEqual(await oracle.settled(done, 'cleared shell'));
    expect(ourScreen.alternateScreen).toBe(false);
  });
});

/**
 * A python program (its lines) run by the tool and under tmux, both read once its output ends with `done`: the
 * tool's screen and tmux's rows, each settled on `done`.
 */
async function pythonOnBoth(
  lines: string[],
  what: string,
  done: (rows: readonly string[]) => boolean,
  timeoutMs = 15_000,
): Promise<{ ours: ScreenView; tmux: string[]; oracle: TmuxOracle }> {
  const program = ['python3', '-c', lines.join('\n')];
  const id = await ctx.rig.spawn(program[0]!, program.slice(1), ROWS, COLS);
  const oracle = ctx.rig.oracle(ctx.rig.dir, ROWS, COLS, program);
  await ctx.rig.call('pty_read', { id, limit: 1, wait: { pattern: 'done$', timeoutMs } });
  const ours = await ctx.rig.settled(id, (s) => done(s.rows), what, timeoutMs);
  return { ours, tmux: await oracle.settled(done, what, timeoutMs), oracle };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
