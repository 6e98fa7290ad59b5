import fc from 'fast-check';
import { LineStore } from '../../src/buffer/line-store.js';
import { partNumbers } from '../support/part-numbers.js';

type Op =
  | { kind: 'line'; text: string }
  | { kind: 'lines'; texts: string[]; prefix: string; suffix: string }
  | { kind: 'fit'; reserve: number };

const text = fc.stringMatching(/^[a-z ]{0,9}$/);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('line' as const), text }),
  // A run of plain lines inside a larger input, as the renderer hands it over.
  fc.record({
    kind: fc.constant('lines' as const),
    texts: fc.array(text, { minLength: 1, maxLength: 8 }),
    prefix: text,
    suffix: text,
  }),
  fc.record({ kind: fc.constant('fit' as const), reserve: fc.integer({ min: 0, max: 12 }) }),
);

describe('LineStore', () => {
  it('keeps exactly the newest lines that fit, readable one by one and joined, whatever way they arrived', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 40 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 24 }),
        (ops, overhead, room, pieceChars) => {
          // Room for the longest generated line (9) always, as the renderer guarantees.
          const maxChars = 9 + 1 + overhead + room;
          const store = new LineStore({ maxChars, overhead, pieceChars });
          const all: string[] = [];
          const cost = (line: string) => line.length + 1 + overhead;
          let retained = 0;
          let scannedTo = 0;
          for (const step of ops) {
            let reserve = 0;
            if (step.kind === 'line') {
              store.line(step.text);
              all.push(step.text);
            } else if (step.kind === 'lines') {
              const run = step.texts.map((t) => `${t}\n`).join('');
              store.lines(`${step.prefix}${run}${step.suffix}`, step.prefix.length, step.prefix.length + run.length);
              all.push(...step.texts);
            } else {
              store.fit(step.reserve);
              reserve = step.reserve;
            }
            // The reference: the longest suffix of all lines whose cost (plus the reserve, at a fit) is in the bound.
            retained = Math.min(
              retained + (step.kind === 'line' ? 1 : step.kind === 'lines' ? step.texts.length : 0),
              all.length,
            );
            let chars = all.slice(all.length - retained).reduce((sum, line) => sum + cost(line), 0);
            // (Every generated line fits alone, so outside a fit the newest line always stays.)
            while (retained > 0 && chars + reserve > maxChars) chars -= cost(all[all.length - retained--] as string);
            const kept = all.slice(all.length - retained);
            // As a scanner of new output reads: from where its last read ended, after every step.
            expect(store.partsFrom(scannedTo).join('')).toBe(
              kept
                .slice(Math.max(scannedTo - store.dropped, 0))
                .map((line) => `${line}\n`)
                .join(''),
            );
            scannedTo = all.length;
            expect(store.size).toBe(kept.length);
            expect(store.dropped).toBe(all.length - kept.length);
            expect(store.chars).toBe(chars);
            expect(kept.map((_, i) => store.text(store.dropped + i))).toEqual(kept);
            expect(store.partsFrom(0).join('')).toBe(kept.map((line) => `${line}\n`).join(''));
            // From any line on, older than the oldest retained one included: what a scanner of new output reads.
            for (let n = store.dropped - 1; n <= all.length; n++) {
              const expected = kept
                .slice(Math.max(n - store.dropped, 0))
                .map((line) => `${line}\n`)
                .join('');
              expect(store.partsFrom(n).join('')).toBe(expected);
              // The same text in parts of whole lines, none empty: what a scanner tests part by part.
              const firstLines: number[] = [];
              const parts = store.partsFrom(n, firstLines);
              expect(parts.join('')).toBe(expected);
              for (const part of parts) expect(part).toMatch(/\n$/);
              // Each part's first line, as counted from the lines of the parts before it.
              expect(firstLines).toEqual(partNumbers(parts, Math.max(n, store.dropped)));
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds any line of long runs in any order, across partly dropped groups', () => {
    const line = fc.stringMatching(/^[a-z]{0,3}$|^[a-z]{60,70}$/);
    const run = fc.array(line, { minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(run, line), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 200, max: 4_000 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (steps, room, picks) => {
          const overhead = 3;
          const maxChars = 71 + overhead + room;
          const store = new LineStore({ maxChars, overhead, pieceChars: 100 });
          const all: string[] = [];
          for (const step of steps) {
            if (typeof step === 'string') store.line(step);
            else store.lines(step.map((t) => `${t}\n`).join(''), 0, step.map((t) => `${t}\n`).join('').length);
            all.push(...(typeof step === 'string' ? [step] : step));
          }
          store.fit(0);
          let retained = 0;
          let chars = 0;
          while (
            retained < all.length &&
            chars + (all[all.length - 1 - retained] as string).length + 1 + overhead <= maxChars
          ) {
            chars += (all[all.length - 1 - retained] as string).length + 1 + overhead;
            retained++;
          }
          expect([store.size, store.dropped, store.chars]).toEqual([retained, all.length - retained, chars]);
          for (const pick of picks) {
            const n = store.dropped + (pick % retained);
            expect(store.text(n)).toBe(all[n]);
          }
          expect(store.partsFrom(0).join('')).toBe(
            all
              .slice(all.length - retained)
              .map((t) => `${t}\n`)
              .join(''),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds at most the bound plus one run and one open piece, however much arrives', () => {
    const maxChars = 1_000;
    const pieceChars = 64;
    const store = new LineStore({ maxChars, overhead: 0, pieceChars });
    const run = 'line of text\n'.repeat(20);
    for (let i = 0; i < 2_000; i++) {
      if (i % 3 === 0) store.line(`single ${i}`);
      else store.lines(run, 0, run.length);
      store.fit(0);
      expect(store.chars).toBeLessThanOrEqual(maxChars);
      expect(store.heldChars).toBeLessThanOrEqual(maxChars + run.length + pieceChars + 'single 2000\n'.length);
    }
    expect(store.dropped + store.size).toBe(Math.ceil(2_000 / 3) + (2_000 - Math.ceil(2_000 / 3)) * 20);
  });

  it('releases a huge run once newer lines push all of it out', () => {
    const store = new LineStore({ maxChars: 100, overhead: 0, pieceChars: 16 });
    const huge = 'y\n'.repeat(100_000);
    store.lines(huge, 0, huge.length);
    expect(store.size).toBe(50);
    expect(store.heldChars).toBe(huge.length);
    for (let i = 0; i < 60; i++) store.line('z');
    store.fit(0);
    expect(store.heldChars).toBeLessThanOrEqual(100 + 16 + 2);
    expect(store.text(store.dropped)).toBe('z');
  });
});
