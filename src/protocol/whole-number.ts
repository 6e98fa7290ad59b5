import { z } from 'zod';

/**
 * How a refused value was given, for the message: a number as JavaScript prints it (1.5, Infinity, 1e+308), anything
 * else by its kind, so that "5" (a string) and 5 are told apart.
 */
export function givenValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (Array.isArray(value)) return 'an array';
  return `${typeof value === 'object' ? 'an object' : typeof value}`;
}

export interface WholeNumberOptions {
  /** Written after each bound, e.g. " ms". */
  readonly unit?: string;
  /** Said after a value above `max`: what to do instead. */
  readonly overMax?: string;
}

/**
 * An integer field of a tool's input, from `min` to `max` (limits.ts). Every way of getting it wrong (not a number,
 * Infinity or NaN, a fraction, past the safe integers, out of bounds) is refused by one message that says what is
 * allowed and what was given: zod's own ("expected number, received number" for Infinity, "expected int to be
 * <9007199254740991" for a huge one) named neither. The message is the schema's own, so the V2 host, which validates
 * with the schema itself, shows it too; the field is named by the issue's path. The JSON Schema the model sees is
 * unchanged: an integer with its minimum and maximum.
 */
export function wholeNumber(min: number, max: number, options: WholeNumberOptions = {}) {
  const unit = options.unit ?? '';
  const range = `a whole number from ${min} to ${max}${unit}`;
  const error = (issue: { readonly input?: unknown }): string => {
    const { input } = issue;
    if (input === undefined) return `required (${range})`;
    const got = givenValue(input);
    if (typeof input === 'number' && Number.isInteger(input)) {
      if (input < min) return `must be at least ${min}${unit} (${range}), got ${got}`;
      if (input > max)
        return `must be at most ${max}${unit} (${range}), got ${got}${options.overMax ? `; ${options.overMax}` : ''}`;
    }
    return `must be ${range}, got ${got}`;
  };
  // `abort`: a fraction or an unsafe integer is one problem, not that one and a bound too.
  return z.number({ error }).int({ error, abort: true }).min(min, { error }).max(max, { error });
}
