import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { dependsOnModes, encodeKey, parseKey } from '../../src/keys/encode-key.js';
import { SPECIAL_KEYS } from '../../src/keys/key-names.js';
import { encodeInput, needsKeyModes } from '../../src/keys/write-input.js';
import { MAX_KEY_PRESSES } from '../../src/limits.js';

const normal = { applicationCursorKeys: false };
const application = { applicationCursorKeys: true };

describe('named keys', () => {
  it.each([
    ['Enter', '\r'],
    ['Tab', '\t'],
    ['Esc', '\x1b'],
    ['Backspace', '\x7f'],
    ['Space', ' '],
    ['Insert', '\x1b[2~'],
    ['Delete', '\x1b[3~'],
    ['PageUp', '\x1b[5~'],
    ['PageDown', '\x1b[6~'],
    ['F1', '\x1bOP'],
    ['F4', '\x1bOS'],
    ['F5', '\x1b[15~'],
    ['F12', '\x1b[24~'],
    ['C-c', '\x03'],
    ['C-a', '\x01'],
    ['C-z', '\x1a'],
    ['C-Space', '\x00'],
    ['C-[', '\x1b'],
    ['C-\\', '\x1c'],
    ['M-x', '\x1bx'],
    ['M-Enter', '\x1b\r'],
    ['C-M-x', '\x1b\x18'],
    ['M-C-x', '\x1b\x18'],
    ['S-Tab', '\x1b[Z'],
    ['BTab', '\x1b[Z'],
    ['C-Left', '\x1b[1;5D'],
    ['M-Up', '\x1b[1;3A'],
    ['S-Right', '\x1b[1;2C'],
    ['C-S-Down', '\x1b[1;6B'],
    ['C-Delete', '\x1b[3;5~'],
    ['S-F1', '\x1b[1;2P'],
    ['C-F5', '\x1b[15;5~'],
    ['Return', '\r'],
    ['escape', '\x1b'],
    ['BSpace', '\x7f'],
    ['DC', '\x1b[3~'],
    ['PgDn', '\x1b[6~'],
    ['NPage', '\x1b[6~'],
    ['pageup', '\x1b[5~'],
  ])('%s is sent as the terminal sends it', (name, bytes) => {
    expect(encodeKey(name, normal)).toBe(bytes);
    expect(encodeKey(name, application)).toBe(bytes);
  });

  it.each([
    ['Up', '\x1b[A', '\x1bOA'],
    ['Down', '\x1b[B', '\x1bOB'],
    ['Right', '\x1b[C', '\x1bOC'],
    ['Left', '\x1b[D', '\x1bOD'],
    ['Home', '\x1b[H', '\x1bOH'],
    ['End', '\x1b[F', '\x1bOF'],
  ])('%s follows the cursor key mode', (name, inNormal, inApplication) => {
    expect(encodeKey(name, normal)).toBe(inNormal);
    expect(encodeKey(name, application)).toBe(inApplication);
    expect(dependsOnModes(name)).toBe(true);
    expect(dependsOnModes(`C-${name}`)).toBe(false);
  });

  it.each(['Foo', 'Ctrl-c', 'C-', 'M-', 'C-é', 'S-a', 'C-Enter', 'S-Backspace', 'ab', 'F13'])(
    'refuses %s with the list of names',
    (name) => {
      expect(() => encodeKey(name, normal)).toThrow(/Known keys: Enter, Tab, Esc.*F12.*modifiers as prefixes/s);
    },
  );

  it('property: every special key with any modifiers is refused clearly or encodes to an escape sequence or control bytes that parse back', () => {
    const names = Object.keys(SPECIAL_KEYS);
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.subarray(['C-', 'M-', 'S-']), fc.boolean(), (name, mods, app) => {
        const full = mods.join('') + name;
        let bytes: string;
        try {
          bytes = encodeKey(full, { applicationCursorKeys: app });
        } catch (err) {
          expect(String(err)).toContain('Known keys');
          return;
        }
        expect(bytes.length).toBeGreaterThan(0);
        expect(parseKey(full).modifiers.ctrl).toBe(mods.includes('C-'));
        // A key with a modifier never depends on the mode (xterm's CSI 1;m form); Alt alone only prefixes ESC.
        if (mods.length > 0) expect(bytes).toBe(encodeKey(full, { applicationCursorKeys: !app }));
      }),
    );
  });

  it('property: M-<char> is ESC then the character, and C-<letter> its control code, for every letter', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 1 }), (char) => {
        expect(encodeKey(`M-${char}`, normal)).toBe(`\x1b${char}`);
      }),
    );
    for (let code = 0x61; code <= 0x7a; code++) {
      const letter = String.fromCharCode(code);
      expect(encodeKey(`C-${letter}`, normal)).toBe(String.fromCharCode(code - 0x60));
      expect(encodeKey(`C-${letter.toUpperCase()}`, normal)).toBe(String.fromCharCode(code - 0x60));
    }
  });
});

describe('pty_write input lists', () => {
  it('types text and keys in order and shows keys by name', () => {
    const { bytes, shown } = encodeInput(
      [{ key: 'Esc' }, { text: ':wq' }, { key: 'Enter' }, { key: 'Down', times: 3 }],
      application,
    );
    expect(bytes.toString('latin1')).toBe('\x1b:wq\r\x1bOB\x1bOB\x1bOB');
    expect(shown).toBe('<Esc> ":wq" <Enter> <Down>×3');
  });

  it('quotes each text in the summary, so text that reads like a key, or spaces, or a quote, is told apart', () => {
    const { shown } = encodeInput(
      [{ text: '<Enter>' }, { key: 'Enter' }, { text: 'a b' }, { text: 'say "hi"\\' }],
      normal,
    );
    expect(shown).toBe('"<Enter>" <Enter> "a b" "say \\"hi\\"\\\\"');
  });

  it('hands the bytes over as a person types them: each key press a write of its own, the text between them one', () => {
    const { bytes, presses } = encodeInput(
      [{ text: 'process.' }, { text: 'ver' }, { key: 'Tab', times: 2 }, { key: 'Esc' }, { text: 'x' }],
      normal,
    );
    expect(presses.map((p) => p.toString('latin1'))).toEqual(['process.ver', '\t', '\t', '\x1b', 'x']);
    expect(Buffer.concat(presses)).toEqual(bytes);
    // Typing is bounded in time: at most MAX_KEY_PRESSES writes a call.
    expect(() =>
      encodeInput(
        [
          { key: 'Down', times: 100 },
          { key: 'Up', times: MAX_KEY_PRESSES - 99 },
        ],
        normal,
      ),
    ).toThrow(/input types 129 key presses .* at most 128 \(MAX_KEY_PRESSES\) per call/);
    expect(
      encodeInput(
        [
          { key: 'Down', times: 100 },
          { key: 'Up', times: 28 },
        ],
        normal,
      ).presses,
    ).toHaveLength(128);
  });

  it('types text exactly as given: a backslash is a backslash (code keeps its escapes), keys are for keys', () => {
    expect(encodeInput([{ text: 'print(repr("a\\nb"), len("x\\ty"))' }], normal).bytes.toString()).toBe(
      'print(repr("a\\nb"), len("x\\ty"))',
    );
    expect(() => encodeInput([{ text: 'a\ud800' }], normal)).toThrow(/input\[0\]\.text holds a lone surrogate/);
  });

  it('says whether the modes are needed', () => {
    expect(needsKeyModes([{ text: 'x' }, { key: 'Enter' }, { key: 'C-Up' }])).toBe(false);
    expect(needsKeyModes([{ key: 'Home' }])).toBe(true);
  });

  it('refuses an item with both or neither, empty text, bad repeat counts, an empty list, and too many bytes', () => {
    expect(() => encodeInput([{ text: 'a', key: 'Enter' } as never], normal)).toThrow(
      /input\[0\] must have exactly one of "text" or "key" \(got both\)/,
    );
    expect(() => encodeInput([{} as never], normal)).toThrow(/got neither/);
    expect(() => encodeInput([{ text: '' }], normal)).toThrow(/input\[0\]\.text is empty/);
    expect(() => encodeInput([{ key: 'Up', times: 0 }], normal)).toThrow(/times must be a whole number from 1 to 100/);
    expect(() => encodeInput([{ key: 'Up', times: 101 }], normal)).toThrow(/from 1 to 100, got 101/);
    expect(() => encodeInput([], normal)).toThrow(/at least one item/);
    expect(() =>
      encodeInput(
        Array.from({ length: 200 }, () => ({ key: 'F12', times: 100 })),
        normal,
      ),
    ).toThrow(/more than 65536 bytes/);
    expect(() => encodeInput([{ key: 'Nope' }], normal)).toThrow(/key "Nope" is not a key name/);
  });
});
