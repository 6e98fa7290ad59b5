/**
 * UTF-16 surrogate halves. A pair is one character beyond U+FFFF; a half on its own has no UTF-8 form, so text
 * must never be cut between the two halves, and a lone half must be refused rather than sent as U+FFFD.
 */

export const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
export const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
export const isSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdfff;

/** The index of the first surrogate half not part of a pair in `text`, or -1 when the text is well formed. */
export function loneSurrogateAt(text: string): number {
  if (text.isWellFormed()) return -1;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    else if (isSurrogate(unit)) return i;
  }
  return -1;
}
