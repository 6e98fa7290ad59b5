import type { SmokeHarness } from './harness.js';

/** One adversarial check of the whole plugin against real processes. It throws a SmokeFailure when it sees something other than what it expects. */
export interface Scenario {
  readonly name: string;
  /** One line: what it proves. */
  readonly summary: string;
  run(h: SmokeHarness): Promise<void>;
}
