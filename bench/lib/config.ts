export interface BenchConfig {
  /** Small sizes, few repetitions: a fast check that everything runs. */
  readonly quick: boolean;
}

export const pick = <T>(cfg: BenchConfig, quick: T, full: T): T => (cfg.quick ? quick : full);
