/**
 * `whole` cut at the given positions (taken modulo its length + 1, repeats ignored), as pieces in order: a property
 * test's arbitrary chunking of a stream. `piece(from, to)` takes one piece out of it.
 */
export function cutAt<T>(length: number, cuts: readonly number[], piece: (from: number, to: number) => T): T[] {
  const points = [...new Set(cuts.map((cut) => cut % (length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(piece(from, point));
    from = point;
  }
  pieces.push(piece(from, length));
  return pieces;
}
