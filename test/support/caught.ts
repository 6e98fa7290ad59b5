import { PtyError } from '../../src/errors.js';

/** The PtyError `run` throws (fails the test when it throws nothing or something else). */
export function caught(run: () => unknown): PtyError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PtyError);
    return err as PtyError;
  }
  throw new Error('expected a PtyError, nothing was thrown');
}
