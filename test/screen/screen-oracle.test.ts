import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScreenRig, TmuxOracle } from '../support/screen-rig.js';

jest.setTimeout(60_000);

const ROWS = 12;
const COLS = 60;

let rig: ScreenRig;
let oracle: TmuxOracle | undefined;
beforeEach(() => {
  rig = new ScreenRig();
});
afterEach(async () => {
  oracle?.kill();
  oracle = undefined;
  await rig.close();
});

describe('the screen agrees with tmux row for row', () => {
  it('vim: open, edit by named keys, :wq; the file is right on both sides', async () => {
    const { ours, theirs } = rig.sides({ 'notes.txt': 'alpha\nbeta\ngamma\n' });
    const id = await rig.spawn('vim', ['-u', 'NONE', '-N', 'notes.txt'], ROWS, COLS, ours);
    oracle = new TmuxOracle(theirs, ROWS, COLS, ['vim', '-u', 'NONE', '-N', 'notes.txt']);
    const opened = await rig.settled(id, (s) => s.rows[0] === 'alpha', 'vim open');
    const tmuxOpened = await oracle.settled((r) => r[0] === 'alpha', 'vim open');
    expect(opened.alternateScreen).toBe(true);
    expect(opened.rows).toEqual(tmuxOpened);

    await rig.call('pty_write', { id, input: [{ key: 'Down' }, { text: 'dd' }, { key: 'End' }, { key: 'Home' }, { text: 'i' }, { text: 'INSERTED ' }, { key: 'Esc' }] });
    oracle.send(['Down', 'd', 'd', 'End', 'Home', 'i']);
    oracle.send(['INSERTED '], true);
    oracle.send(['Escape']);
    // vim leaves insert mode once its escape timeout has passed: wait for the mode line to clear on both sides.
    const normalMode = (rows: string[]) => rows[1]?.includes('INSERTED') === true && !rows[ROWS - 1]?.includes('INSERT');
    const edited = await rig.settled(id, (s) => normalMode(s.rows), 'vim edit');
    const tmuxEdited = await oracle.settled(normalMode, 'vim edit');
    expect(edited.rows).toEqual(tmuxEdited);
    expect(edited.cursor).toMatchObject({ row: 1 });

    await rig.call('pty_write', { id, input: [{ text: ':wq' }, { key: 'Enter' }] });
    oracle.send([':wq', 'Enter']);
    const file = (dir: string) => readFileSync(join(dir, 'notes.txt'), 'utf8');
    await waitFor(() => file(ours).includes('INSERTED') && file(theirs).includes('INSERTED'), 'vim to write both files');
    expect(file(ours)).toBe('alpha\nINSERTED gamma\n');
    expect(file(ours)).toBe(file(theirs));
  });
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
