import { describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../../src/testkit/waits.js';
import { useScreenRig } from '../support/screen-rig.js';

jest.setTimeout(60_000);

const ROWS = 10;
const COLS = 60;

const ctx = useScreenRig();

// What vim and less draw on the alternate screen is no part of a terminal's scrollback; the line log is that
// scrollback, so it holds what tmux keeps, and a wait on a full-screen program matches its screen's rows.
describe('a full-screen program in the line log and in waits', () => {
  it('the lines of a shell session with vim and less in it are what tmux keeps, row for row', async () => {
    const { ours, theirs } = ctx.rig.sides({
      'long.txt': `${Array.from({ length: 40 }, (_, i) => `row ${i}`).join('\n')}\n`,
    });
    const shell = ['bash', '--norc', '--noprofile', '-i'];
    const id = await ctx.rig.spawn('bash', shell.slice(1), ROWS, COLS, ours);
    const oracle = ctx.rig.oracle(theirs, ROWS, COLS, shell);
    const prompt = '[$#] ?$';
    await ctx.rig.call('pty_read', { id, wait: { pattern: prompt } });
    await oracle.settled((r) => r.some((row) => /[$#]$/.test(row)), 'the shell prompt');
    // Each step: keys as tmux names them (text typed literally otherwise), and what shows once it is done (on the
    // screen or in the lines); vim takes an Esc followed at once by more keys for a key of its own, so it goes alone.
    const steps: { keys: string[]; shows?: string }[] = [
      { keys: ['echo before; vim -u NONE -N notes.txt', 'Enter'], shows: 'notes\\.txt' },
      { keys: ['ihello world'], shows: 'hello world' },
      { keys: ['Escape'] },
      { keys: [':wq', 'Enter'], shows: prompt },
      { keys: ['less long.txt', 'Enter'], shows: '^row 0$' },
      { keys: ['NPage'], shows: '^row 9$' },
      { keys: ['q'], shows: prompt },
      { keys: ['echo after', 'Enter'], shows: '^after$' },
    ];
    const KEYS: Record<string, string> = { Enter: 'Enter', Escape: 'Esc', NPage: 'PageDown' };
    for (const { keys, shows } of steps) {
      const input = keys.map((k) => (KEYS[k] === undefined ? { text: k } : { key: KEYS[k] }));
      const wait = shows === undefined ? { quietMs: 300 } : { pattern: shows, timeoutMs: 10_000 };
      const answer = await ctx.rig.call('pty_write', { id, input, wait });
      expect(answer.reason).toBe(shows === undefined ? 'quiet' : 'match');
      for (const k of keys) oracle.send([k], KEYS[k] === undefined);
      await oracle.settled(
        (r) => shows === undefined || r.some((row) => new RegExp(shows).test(row)),
        keys[0] as string,
      );
    }
    await oracle.settled((r) => r.includes('after'), 'tmux: after');
    const lines = (await ctx.rig.call('pty_read', { id, limit: 200 })).lines.map((l: { text: string }) => l.text);
    // tmux trims the blanks that end a row, the prompt's space among them.
    expect(lines.map((l: string) => l.trimEnd())).toEqual(oracle.history());
    expect(lines.filter((l: string) => /hello|row|~/.test(l))).toEqual([]);
    expect(readFileSync(join(ours, 'notes.txt'), 'utf8')).toBe('hello world\n');
  });

  it("a wait matches the rows the call changed on vim's screen, not those it showed already; a second :w too", async () => {
    const id = (
      await ctx.rig.call('pty_spawn', {
        command: 'vim',
        args: ['-u', 'NONE', '-N', 'notes.txt'],
        rows: ROWS,
        cols: COLS,
        description: 'vim',
        wait: { pattern: '^"notes\\.txt"' },
      })
    ).id;
    const written = { pattern: 'written', timeoutMs: 10_000 };
    const first = await ctx.rig.call('pty_write', { id, input: [{ text: ':w' }, { key: 'Enter' }], wait: written });
    expect(first).toMatchObject({ reason: 'match', screenMatch: { screenRow: ROWS - 1 }, lines: [] });
    expect(first.screenMatch.text).toMatch(/^"notes\.txt" \[New\] 0L, 0B written/);
    expect(first.match).toBeUndefined();
    expect(first.screen.rows[ROWS - 1]).toBe(first.screenMatch.text);
    // The message shows already: a wait for it with nothing typed is no match.
    const idle = await ctx.rig.call('pty_read', { id, wait: { pattern: 'written', timeoutMs: 300 } });
    expect(idle.reason).toBe('timeout');
    // The same message again after a second :w, which showed `:w` in between.
    const second = await ctx.rig.call('pty_write', { id, input: [{ text: ':w' }, { key: 'Enter' }], wait: written });
    expect(second).toMatchObject({ reason: 'match', screenMatch: { screenRow: ROWS - 1 } });
    expect(second.screenMatch.text).toMatch(/^"notes\.txt" 0L, 0B written/);
    // From a cursor: what came after it counts, what showed when it was handed out does not, the call's start apart.
    const typed = await ctx.rig.call('pty_write', { id, input: [{ text: ':echo "pong"' }, { key: 'Enter' }] });
    await sleep(300);
    const late = await ctx.rig.call('pty_read', {
      id,
      cursor: typed.cursor,
      wait: { pattern: 'pong', timeoutMs: 5_000 },
    });
    expect(late).toMatchObject({ reason: 'match', screenMatch: { screenRow: ROWS - 1, text: 'pong' } });
    expect(late.waitedMs).toBeLessThan(1_000);
    const shown = await ctx.rig.call('pty_read', {
      id,
      cursor: late.cursor,
      wait: { pattern: 'pong', timeoutMs: 300 },
    });
    expect(shown.reason).toBe('timeout');
    // Leaving the alternate screen, the lines take over again: vim's exit.
    const quit = await ctx.rig.call('pty_write', {
      id,
      input: [{ text: ':q' }, { key: 'Enter' }],
      wait: { timeoutMs: 10_000 },
    });
    expect(quit).toMatchObject({ reason: 'exit', exitCode: 0, lines: [] });
    expect(quit.screen).toBeUndefined();
  });

  it('rows that only scrolled are no answer; a message printed again with the same text is', async () => {
    const text = `${Array.from({ length: 100 }, (_, i) => (i === 4 ? 'TARGET' : `line ${i + 1}`)).join('\n')}\n`;
    const { ours } = ctx.rig.sides({ 'f.txt': text });
    const less = await ctx.rig.spawn('less', ['f.txt'], ROWS, COLS, ours);
    await ctx.rig.settled(less, (s) => s.rows[4] === 'TARGET', 'less');
    const scrolled = await ctx.rig.call('pty_write', {
      id: less,
      data: 'j',
      wait: { pattern: 'TARGET', timeoutMs: 500 },
    });
    expect(scrolled.reason).toBe('timeout');
    expect(scrolled.screen.rows[3]).toBe('TARGET');
    const end = await ctx.rig.call('pty_write', { id: less, data: 'G', wait: { pattern: '^line 100$' } });
    expect(end).toMatchObject({ reason: 'match', screenMatch: { text: 'line 100' } });

    const vim = (
      await ctx.rig.call('pty_spawn', {
        command: 'vim',
        args: ['-u', 'NONE', '-N'],
        rows: ROWS,
        cols: COLS,
        description: 'vim',
        wait: { pattern: '^~' },
      })
    ).id;
    // One write each, so vim's command line never shows anything else in between: the same message twice.
    for (const round of [1, 2]) {
      const answer = await ctx.rig.call('pty_write', {
        id: vim,
        data: ':foo\r',
        wait: { pattern: '^E492', timeoutMs: 5_000 },
      });
      expect([round, answer.reason, answer.screenMatch?.text]).toEqual([
        round,
        'match',
        'E492: Not an editor command: foo',
      ]);
    }
  });
});
