import { z } from 'zod';
import { PtyError } from '../errors.js';

/** Validates tool input with its zod shape; every problem is named with its field, the limit and the value kind. */
export function parseInput<S extends z.ZodRawShape>(tool: string, shape: S, input: unknown): z.infer<z.ZodObject<S>> {
  const result = z.strictObject(shape).safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'input';
    return `${field}: ${issue.message}`;
  });
  throw new PtyError('invalid_input', `${tool}: invalid input: ${problems.join('; ')}. Nothing was done.`);
}
