import { z } from 'zod';
import { PtyError } from '../errors.js';

/** One strict object schema per tool shape: building it per call cost ~180 µs and most of a read's garbage. */
const schemas = new WeakMap<z.ZodRawShape, z.ZodType>();

/** The strict object schema of a tool's shape (an unknown key is refused), built once per shape. */
export function strictSchema<S extends z.ZodRawShape>(shape: S): z.ZodObject<S> {
  let schema = schemas.get(shape);
  if (schema === undefined) {
    schema = z.strictObject(shape);
    schemas.set(shape, schema);
  }
  return schema as z.ZodObject<S>;
}

/** Validates tool input with its zod shape; every problem is named with its field, the limit and the value kind. */
export function parseInput<S extends z.ZodRawShape>(tool: string, shape: S, input: unknown): z.infer<z.ZodObject<S>> {
  const result = strictSchema(shape).safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? fieldName(issue.path) : 'input';
    // zod says "Invalid input: expected string, received undefined" for a field left out.
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined'))
      return `${field}: required (${issue.expected})`;
    return `${field}: ${issue.message}`;
  });
  throw new PtyError('invalid_input', `${tool}: invalid input: ${problems.join('; ')}. Nothing was done.`);
}

/** A field as the other errors name it: `watch[0].pattern`, `resize.rows`. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${String(key)}`)).join('');
}
