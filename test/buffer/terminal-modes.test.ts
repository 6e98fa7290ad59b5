import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LineRenderer } from '../../src/buffer/line-renderer.js';
import { replayModes } from '../../src/buffer/replay-modes.js';
import { modesPrelude, restorable } from '../../src/buffer/terminal-modes.js';
import { MAX_WINDOW_TITLE_CHARS } from '../../src/limits.js';
import { screenRows } from '../../src/screen/lazy-screen.js';
import { ENTER_ALTERNATE_SCREEN } from '../../src/screen/reset-points.js';
import { createTerminal, cursorHidden, type XtermTerminal } from '../../src/screen/xterm.js';

const size = { rows: 6, cols: 20 };

const write = (terminal: XtermTerminal, text: string) => new Promise<void>((resolve) => terminal.write(text, resolve));

/** A terminal that remembers the last title it was given. */
function titled(): { terminal: XtermTerminal; title: () => string } {
  const terminal = createTerminal(size);
  let title = '';
  terminal.onTitleChange((t) => (title = t));
  return { terminal, title: () => title };
}

/** What the terminal's state shows: its screen, modes and title, then what a redraw at the top left prints with them. */
async function observed({ terminal, title }: ReturnType<typeof titled>) {
  const { modes } = terminal;
  const internals = (terminal as unknown as { _core: { buffer: { scrollTop: number; scrollBottom: number } } })._core;
  const state = {
    screen: terminal.buffer.active.type,
    cursorKeys: modes.applicationCursorKeysMode,
    keypad: modes.applicationKeypadMode,
    insert: modes.insertMode,
    origin: modes.originMode,
    wrap: modes.wraparoundMode,
    reverseWrap: modes.reverseWraparoundMode,
    hidden: cursorHidden(terminal),
    region: [internals.buffer.scrollTop, internals.buffer.scrollBottom],
    title: title(),
  };
  // Line drawing shows in `lqkx`, tab stops in the tabs, insert and wrap in the long line, the region in the scrolling
  // (the whole screen does not scroll: the first row stays in view).
  await write(terminal, `\x1b[H\x1b[2Jlqkx\ta\tb\r\x1b[Ccd${'w'.repeat(25)}\n1\n2\n3\n4`);
  return { ...state, rows: screenRows(terminal) };
}

/** The renderer's modes after `text`, given back to a fresh emulator on the screen the renderer says is shown. */
function rendered(text: string) {
  const renderer = new LineRenderer();
  renderer.push(text);
  const { modes, alternateScreen } = renderer;
  return {
    prelude: modesPrelude(modes, alternateScreen ? ENTER_ALTERNATE_SCREEN : undefined),
    restorable: restorable(modes, alternateScreen ? 'alternate' : 'normal'),
  };
}

describe('terminal modes a screen restart gives back', () => {
  const piece = fc.constantFrom(
    ...['\x1b[?1h', '\x1b[?1l', '\x1b[?6h', '\x1b[?6l', '\x1b[?7l', '\x1b[?7h', '\x1b[?25l', '\x1b[?25h'],
    ...['\x1b[?45h', '\x1b[?66h', '\x1b=', '\x1b>', '\x1b[?1;25l', '\x1b[?7;6h', '\x1b[?2h', '\x1b[?1049;1h'],
    ...['\x1b[4h', '\x1b[4l', '\x1b[4;20h', '\x1b[2;4r', '\x1b[r', '\x1b[3r', '\x1b[;4r', '\x1b[5;2r', '\x1b[0;0r'],
    ...['\x1b[3g', '\x1b[g', '\x1b[0g', '\x1bH', '\x88', '\x1b[2;9H', '\x1b[!p', '\x1bc'],
    ...['\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[?1047h', '\x1b[?1047l'],
    ...['\x1b7', '\x1b8', '\x1b[s', '\x1b[u', '\x1b[?1048h', '\x1b[?1048l'],
    ...['\x0e', '\x0f', '\x1bn', '\x1bo', '\x1b~', '\x1b}', '\x1b|', '\x1b%@', '\x1b%G'],
    ...['\x1b(0', '\x1b(B', '\x1b)0', '\x1b)A', '\x1b*0', '\x1b+0', '\x1b-0', '\x1b.0', '\x1b/0', '\x1b(%', '\x1b((0'],
    ...['ab', '\n', '\x1b[31m', '\x1b]2;t\x07', '\x1b]0;x y\x1b\\', '\x1b]1;icon\x07', '\x1b]2\x07', '\x1b]02;z\x07'],
    ...[
      '\x1b];t\x07',
      '\x1b]2;a\x18',
      '\x9d2;c1\x9c',
      '\x1b]2;é中\x07',
      '\x1b]x2;no\x07',
      '\x1b]2;a\x1b[?1h',
      '\x1b]2;a\tb\x07',
    ],
  );

  it('property: a fresh emulator given the prelude is in the state of one fed every byte, when restorable says so', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), async (pieces) => {
        const text = pieces.join('');
        const { prelude, restorable: whole } = rendered(text);
        if (!whole) return;
        compared++;
        const [fed, restarted] = [titled(), titled()];
        await write(fed.terminal, text);
        await write(restarted.terminal, prelude);
        expect({ pieces, ...(await observed(restarted)) }).toEqual({ pieces, ...(await observed(fed)) });
        fed.terminal.dispose();
        restarted.terminal.dispose();
      }),
      { numRuns: 400 },
    );
    // Most runs are restorable: the property is about the prelude, not about giving up.
    expect(compared).toBeGreaterThan(200);
  });

  it('property: a renderer started from the modes where a cut falls ends where one fed everything does', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.nat(), (pieces, cutAt) => {
        const text = pieces.join('');
        const cut = cutAt % (pieces.length + 1);
        const head = new LineRenderer();
        head.push(pieces.slice(0, cut).join(''));
        const start = { alternate: head.alternateScreen, modes: head.modes };
        const all = new LineRenderer();
        all.push(text);
        const { end } = replayModes(pieces.slice(cut).join(''), start);
        expect(end).toEqual({ alternate: all.alternateScreen, modes: all.modes });
      }),
      { numRuns: 500 },
    );
  });

  it('follows the set a cursor restore brings back, and says when no prelude can give it', async () => {
    // Restores: DECRC, CSI u, leaving 1049 (xterm.js restores the set printing used with the cursor).
    for (const [text, restorable] of [
      ['\x1b7\x1b(0\x1b8', false],
      ['\x1b[s\x1b(0\x1b[u', false],
      ['\x1b[?1049h\x1b(0\x1b[?1049l', false],
      ['\x1b7\x1b(0\x1b(B\x1b8', true],
      ['\x1b(0\x1b7\x1b(B\x1b8\x1b(0', true],
    ] as const) {
      expect({ text, restorable: rendered(text).restorable }).toEqual({ text, restorable });
    }
  });

  it('keeps a title up to MAX_WINDOW_TITLE_CHARS, and gives none back past it', () => {
    const titled = (title: string) => {
      const renderer = new LineRenderer();
      renderer.push(`\x1b]2;earlier\x07\x1b]0;${title}\x07after\n`);
      return renderer.modes.title;
    };
    const longest = 'é'.repeat(MAX_WINDOW_TITLE_CHARS);
    expect(titled(longest)).toBe(longest);
    expect(titled(`${longest}x`)).toBeUndefined();
    // The prelude then sets none: a restart shows no title rather than a cut one.
    const renderer = new LineRenderer();
    renderer.push(`\x1b]2;${longest}x\x07`);
    expect(modesPrelude(renderer.modes)).not.toContain('\x1b]');
    expect(titled('')).toBe('');
  });

  it('follows a resize as xterm.js takes it: regions whole, tab stops other than fresh unknown', async () => {
    const renderer = new LineRenderer();
    renderer.push('\x1b[?7l');
    const unchanged = renderer.modes;
    renderer.resized();
    expect(renderer.modes).toBe(unchanged);
    renderer.push('\x1b[2;4r\x1b[3g\x1b[?1049h\x1b[3;5r');
    renderer.resized();
    expect(renderer.modes).toMatchObject({
      normal: { region: undefined, tabs: 'unknown' },
      alternate: { region: undefined, tabs: 'fresh' },
    });
    // The regions as xterm.js has them after the same resize.
    const terminal = createTerminal(size);
    await write(terminal, '\x1b[2;4r\x1b[3g\x1b[?1049h\x1b[3;5r');
    terminal.resize(24, 8);
    const { buffers } = (
      terminal as unknown as { _core: { buffers: Record<string, { scrollTop: number; scrollBottom: number }> } }
    )._core;
    expect([
      buffers.normal?.scrollTop,
      buffers.normal?.scrollBottom,
      buffers.alt?.scrollTop,
      buffers.alt?.scrollBottom,
    ]).toEqual([0, 7, 0, 7]);
    terminal.dispose();
  });

  it('is the same object from chunk to chunk until a mode changes', () => {
    const renderer = new LineRenderer();
    renderer.push('plain\n');
    const first = renderer.modes;
    renderer.push('\x1b[31mred\x1b[0m and more\n\x1b]8;;https://example.invalid\x07link\x1b]8;;\x07');
    expect(renderer.modes).toBe(first);
    renderer.push('\x1b[?1h');
    expect(renderer.modes).not.toBe(first);
    expect(renderer.modes.privateBits & 1).toBe(1);
  });
});
