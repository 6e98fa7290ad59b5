import { z } from 'zod';
import { MAX_KEY_REPEAT, MAX_READ_LIMIT, MAX_READ_OFFSET } from '../../src/limits.js';
import { PTY_TOOLS } from '../../src/tools/definitions.js';
import { parseInput, strictSchema } from '../../src/tools/parse-input.js';
import { caught } from '../support/caught.js';

/** What the V2 host shows: it validates with the tool's schema itself, and prefixes each message with its path. */
function v2Messages(shape: z.ZodRawShape, input: unknown): string[] {
  const result = strictSchema(shape)['~standard'].validate(input) as {
    issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey> }>;
  };
  return (result.issues ?? []).map((i) => `${(i.path ?? []).map(String).join('.')}: ${i.message}`);
}

interface NumberField {
  readonly tool: string;
  readonly shape: z.ZodRawShape;
  /** Keys from the tool's input down to the number; a number key is the first item of an array. */
  readonly path: readonly (string | number)[];
  readonly min: number;
  readonly max: number;
}

/** Every number field of every tool, found by walking the schemas: a field added later is held to the same rule. */
function numberFields(): NumberField[] {
  const found: NumberField[] = [];
  const walk = (tool: string, shape: z.ZodRawShape, schema: z.ZodType, path: (string | number)[]): void => {
    if (schema instanceof z.ZodOptional) walk(tool, shape, schema.unwrap() as z.ZodType, path);
    else if (schema instanceof z.ZodArray) walk(tool, shape, schema.element as z.ZodType, [...path, 0]);
    else if (schema instanceof z.ZodObject) {
      for (const [key, inner] of Object.entries(schema.shape)) walk(tool, shape, inner as z.ZodType, [...path, key]);
    } else if (schema instanceof z.ZodNumber) {
      const { minValue, maxValue } = schema;
      if (minValue === null || maxValue === null) throw new Error(`${tool} ${path.join('.')} has no bounds`);
      found.push({ tool, shape, path, min: minValue, max: maxValue });
    }
  };
  for (const tool of PTY_TOOLS)
    for (const [key, schema] of Object.entries(tool.args)) walk(tool.name, tool.args, schema as z.ZodType, [key]);
  return found;
}

/** An input that holds `value` at `path` (and nothing else: the other problems are named apart). */
function inputWith(path: readonly (string | number)[], value: unknown): unknown {
  const [key, ...rest] = path;
  const inner = rest.length === 0 ? value : inputWith(rest, value);
  return typeof key === 'number' ? [inner] : { [key as string]: inner };
}

const fieldOf = (path: readonly (string | number)[]) =>
  path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i > 0 ? '.' : ''}${k}`)).join('');
const regexEscaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('number fields: every refusal names the field, what is allowed and what was given', () => {
  const fields = numberFields();

  it('finds the number fields of all five tools', () => {
    expect(fields.map((f) => `${f.tool} ${fieldOf(f.path)}`)).toEqual(
      expect.arrayContaining([
        'pty_spawn timeoutSeconds',
        'pty_spawn rows',
        'pty_spawn wait.timeoutMs',
        'pty_write input[0].times',
        'pty_write resize.cols',
        'pty_read offset',
        'pty_read limit',
        'pty_read wait.quietMs',
      ]),
    );
  });

  const badValues = (f: NumberField): Array<[unknown, string, string]> => [
    // value, how it is said back, what is said to be wrong
    [Infinity, 'Infinity', `must be a whole number from ${f.min} to ${f.max}`],
    [-Infinity, '-Infinity', `must be a whole number from ${f.min} to ${f.max}`],
    [Number.NaN, 'NaN', `must be a whole number from ${f.min} to ${f.max}`],
    [f.min + 0.5, String(f.min + 0.5), `must be a whole number from ${f.min} to ${f.max}`],
    [2 ** 53 + 2, String(2 ** 53 + 2), `must be at most ${f.max}`],
    [1e308, '1e+308', `must be at most ${f.max}`],
    [-1e308, '-1e+308', `must be at least ${f.min}`],
    [f.min - 1, String(f.min - 1), `must be at least ${f.min}`],
    [f.max + 1, String(f.max + 1), `must be at most ${f.max}`],
    ['5', 'the string "5"', `must be a whole number from ${f.min} to ${f.max}`],
    [true, 'true', `must be a whole number from ${f.min} to ${f.max}`],
    [null, 'null', `must be a whole number from ${f.min} to ${f.max}`],
  ];

  it.each(fields.map((f) => [`${f.tool} ${fieldOf(f.path)}`, f] as const))('%s', (_name, f) => {
    for (const [value, said, wrong] of badValues(f)) {
      const input = inputWith(f.path, value);
      const { message, code } = caught(() => parseInput(f.tool, f.shape, input));
      expect(code).toBe('invalid_input');
      const problem = message.match(
        new RegExp(`${regexEscaped(fieldOf(f.path))}: ${regexEscaped(wrong)}[^;]*?, got ${regexEscaped(said)}`),
      );
      expect(problem?.[0]).toContain(`a whole number from ${f.min} to ${f.max}`);
      // One problem for one value (zod gave a huge integer two: the safe range, then the maximum).
      expect(message.split(`${fieldOf(f.path)}:`)).toHaveLength(2);
      // The V2 host shows the schema's own message.
      const v2 = v2Messages(f.shape, input).filter((m) => m.startsWith(`${f.path.join('.')}:`));
      expect(v2).toHaveLength(1);
      expect(v2[0]).toContain(`${wrong}`);
      expect(v2[0]).toContain(`got ${said}`);
    }
  });

  it('accepts the bounds themselves', () => {
    for (const f of fields) {
      for (const value of [f.min, f.max]) {
        const problems = v2Messages(f.shape, inputWith(f.path, value));
        expect(problems.filter((m) => m.startsWith(`${f.path.join('.')}:`))).toEqual([]);
      }
    }
  });

  it('says the real limits: times 1 to MAX_KEY_REPEAT, offset with what to do past it', () => {
    const write = PTY_TOOLS.find((t) => t.name === 'pty_write')!;
    const read = PTY_TOOLS.find((t) => t.name === 'pty_read')!;
    const id = 'pty_1a2b3c4d';
    expect(
      caught(() => parseInput('pty_write', write.args, { id, input: [{ key: 'a', times: 2 ** 53 + 2 }] })).message,
    ).toBe(
      `pty_write: invalid input: input[0].times: must be at most ${MAX_KEY_REPEAT} (a whole number from 1 to ${MAX_KEY_REPEAT}), got ${2 ** 53 + 2}. Nothing was done.`,
    );
    expect(caught(() => parseInput('pty_read', read.args, { id, offset: MAX_READ_OFFSET + 1 })).message).toBe(
      `pty_read: invalid input: offset: must be at most ${MAX_READ_OFFSET} (a whole number from 0 to ${MAX_READ_OFFSET}), got ${MAX_READ_OFFSET + 1}; use tail to read the newest lines, or a narrower pattern. Nothing was done.`,
    );
    expect(caught(() => parseInput('pty_read', read.args, { id, limit: 1.5 })).message).toBe(
      `pty_read: invalid input: limit: must be a whole number from 1 to ${MAX_READ_LIMIT}, got 1.5. Nothing was done.`,
    );
  });

  it('keeps the JSON Schema the model sees: an integer with its bounds', () => {
    const read = PTY_TOOLS.find((t) => t.name === 'pty_read')!;
    const json = z.toJSONSchema(strictSchema(read.args)) as { properties: Record<string, unknown> };
    expect(json.properties['limit']).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_READ_LIMIT });
  });
});

describe('pty_write input items', () => {
  const write = PTY_TOOLS.find((t) => t.name === 'pty_write')!;
  const id = 'pty_1a2b3c4d';

  it('refuses times on a text item (it typed the text once), naming the item, in both hosts', () => {
    const input = { id, input: [{ key: 'Esc' }, { text: 'a', times: 5 }] };
    expect(caught(() => parseInput('pty_write', write.args, input)).message).toMatch(
      /^pty_write: invalid input: input\[1\]\.times: applies to a key only, and this item is text \(typed once\): write the text out .*\{ "key": "Enter", "times": 5 \}\. Nothing was done\.$/,
    );
    expect(v2Messages(write.args, input)).toEqual([expect.stringMatching(/^input\.1\.times: applies to a key only/)]);
  });

  it('takes times on a key, and leaves an item with both text and key to the input check', () => {
    expect(parseInput('pty_write', write.args, { id, input: [{ key: 'Down', times: 3 }] }).input).toEqual([
      { key: 'Down', times: 3 },
    ]);
    expect(() =>
      parseInput('pty_write', write.args, { id, input: [{ text: 'a', key: 'Enter', times: 2 }] }),
    ).not.toThrow();
  });
});

describe('patterns with a lone surrogate', () => {
  const tool = (name: string) => PTY_TOOLS.find((t) => t.name === name)!;
  const id = 'pty_1a2b3c4d';
  const cases: Array<[string, string, Record<string, unknown>, string, string]> = [
    ['pty_read pattern', 'pty_read', { id, pattern: 'bad \udc00' }, 'pattern', 'U+DC00 at position 4'],
    ['pty_read wait.pattern', 'pty_read', { id, wait: { pattern: '\ud800' } }, 'wait.pattern', 'U+D800 at position 0'],
    [
      'pty_write wait.pattern',
      'pty_write',
      { id, data: 'x', wait: { pattern: 'a\ud83d' } },
      'wait.pattern',
      'U+D83D at position 1',
    ],
    [
      'pty_spawn wait.pattern',
      'pty_spawn',
      { command: 'cat', description: 'x', wait: { pattern: '\udfff\ud83d\ude00' } },
      'wait.pattern',
      'U+DFFF at position 0',
    ],
    [
      'pty_spawn description',
      'pty_spawn',
      { command: 'cat', description: 'a\ud800' },
      'description',
      'U+D800 at position 1',
    ],
    [
      'pty_spawn title',
      'pty_spawn',
      { command: 'cat', description: 'x', title: '\udc00' },
      'title',
      'U+DC00 at position 0',
    ],
    [
      'pty_spawn watch[1].pattern',
      'pty_spawn',
      { command: 'cat', description: 'x', watch: [{ pattern: 'ok' }, { pattern: '\ud83d\ude00 \udfff' }] },
      'watch[1].pattern',
      'U+DFFF at position 3',
    ],
  ];

  it.each(cases)(
    'refuses one in %s, naming the field and where it is, in both hosts',
    (_name, name, input, field, where) => {
      const { message, code } = caught(() => parseInput(name, tool(name).args, input));
      expect(code).toBe('invalid_input');
      expect(message).toBe(
        `${name}: invalid input: ${field}: is not valid UTF-8: it holds a lone surrogate ${where} (counting characters from 0), half of a pair with no UTF-8 form on its own. Send the whole character, or a complete surrogate pair. Nothing was done.`,
      );
      expect(v2Messages(tool(name).args, input)).toEqual([expect.stringContaining(`lone surrogate ${where}`)]);
    },
  );

  it('takes a whole character beyond U+FFFF (a surrogate pair)', () => {
    expect(
      parseInput('pty_read', tool('pty_read').args, { id, pattern: '\ud83d\ude00', wait: { pattern: '🎉$' } }),
    ).toEqual({ id, pattern: '😀', wait: { pattern: '🎉$' } });
  });
});
