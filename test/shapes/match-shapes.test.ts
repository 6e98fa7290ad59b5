import { match } from 'ts-pattern';
import { gc, natives, OPTIMIZED } from '../support/v8-natives.js';

type Event = { readonly kind: 'output'; readonly bytes: number } | { readonly kind: 'exit' };

const EVENTS: readonly Event[] = [{ kind: 'output', bytes: 3 }, { kind: 'exit' }];

/** Optimizes `f` with both kinds seen, checks it is, and lets a turn of the loop pass (nothing on the stack then). */
async function optimizedOn(f: (event: Event) => number): Promise<void> {
  natives.prepare(f);
  for (let i = 0; i < 200; i++) f(EVENTS[i % 2] as Event);
  natives.optimizeNext(f);
  f(EVENTS[0] as Event);
  expect(natives.status(f) & OPTIMIZED).toBe(OPTIMIZED);
  await new Promise((resolve) => setImmediate(resolve));
}

// Two functions alike, each optimized once: V8 keeps what it learnt of one function, so each case needs its own.
const bytesBefore = (event: Event): number =>
  match(event)
    .with({ kind: 'output' }, ({ bytes }) => bytes)
    .with({ kind: 'exit' }, () => 0)
    .exhaustive();
const bytesAfter = (event: Event): number =>
  match(event)
    .with({ kind: 'output' }, ({ bytes }) => bytes)
    .with({ kind: 'exit' }, () => 0)
    .exhaustive();

describe('matchShapes', () => {
  // The control runs first, before the module is loaded: once it is, this file's match expressions stay alive for good.
  it('without kept match expressions, a full collection throws away code that inlined a match (the premise)', async () => {
    await optimizedOn(bytesBefore);
    gc();
    gc();
    expect(natives.status(bytesBefore) & OPTIMIZED).toBe(0);
  });

  it('with them kept, the optimized code survives the collection', async () => {
    const { matchShapes } = await import('../../src/shapes/match-shapes.js');
    await optimizedOn(bytesAfter);
    gc();
    gc();
    expect(natives.status(bytesAfter) & OPTIMIZED).toBe(OPTIMIZED);
    const [unmatched, matched] = matchShapes.instance ?? [];
    expect(natives.sameMap(unmatched, match(1))).toBe(true);
    const matchedNow = match(1).with(1, () => 1);
    expect(natives.sameMap(matched, matchedNow)).toBe(true);
  });
});
