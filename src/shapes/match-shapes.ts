import { match } from 'ts-pattern';
import { ShapeKeeper } from './shape-keeper.js';

/**
 * Two of ts-pattern's match expressions, one with a pattern matched, kept for the life of the host (made at load, and
 * made anew as each PTY is let go, see ShapeKeeper).
 *
 * Why: `match(value)` makes a match expression, and a `.with` that matches makes a `{ matched, value }` state; none
 * outlives its call. So at any full collection with no match running, V8 freed their hidden classes and threw away
 * the optimized code of every function that had inlined a match ("weak objects" in `--trace-deopt`), whatever the
 * PTYs were doing. PtySession.onEvent matches its rare events there, and it is inlined into the tap that every chunk
 * passes through: both were compiled again after each full collection, with the buffer's path inlined into them, on
 * V8's compiler threads, while the next PTY's output ran through slower code (docs/perf-journal.md, twenty-ninth
 * session).
 */
export const matchShapes = new ShapeKeeper((): readonly object[] => [
  match<unknown>(undefined),
  match<number>(0).with(0, () => 0),
]);
matchShapes.renew();
