/** The number of each part's first line, counted the slow way: `first`, plus the lines of the parts before it. */
export function partNumbers(parts: readonly string[], first: number): number[] {
  let line = first;
  return parts.map((part) => {
    const number = line;
    line += part.split('\n').length - 1;
    return number;
  });
}
