import { cpuTimeMs } from '../engine/procfs.js';

export interface CpuBudget {
  /** CPU time the process may use. */
  readonly budgetMs: number;
  /** Wall time after which it is over, however little CPU it had. */
  readonly wallTimeoutMs: number;
  /** The shortest wait between two looks at its CPU time. */
  readonly minCheckMs: number;
}

/** Why a process is over: it used its CPU budget (`cpu`), or the wall timeout came first (`wall`: it waited for a core). */
export interface BudgetVerdict {
  readonly kind: 'cpu' | 'wall';
  readonly cpuMs: number;
  readonly elapsedMs: number;
}

export interface BudgetClock {
  readonly now: () => number;
  /** The process's CPU time in ms, undefined when it cannot be read (the process is gone). */
  readonly cpuTimeMs: (pid: number) => number | undefined;
}

const SYSTEM_CLOCK: BudgetClock = { now: () => performance.now(), cpuTimeMs };

/**
 * Calls `over` once, when process `pid` has used `budget.budgetMs` of CPU time or `budget.wallTimeoutMs` have passed,
 * whichever comes first; returns the cancel. It looks no earlier than the budget could be spent (CPU time never runs
 * ahead of wall time for a single-threaded process), then again when the rest of the budget could be, so a process
 * that has the CPU is stopped within `minCheckMs` of spending it, and one that waits for a core costs a look per
 * budget's worth of waiting.
 */
export function watchCpuBudget(
  pid: number,
  budget: CpuBudget,
  over: (verdict: BudgetVerdict) => void,
  clock: BudgetClock = SYSTEM_CLOCK,
): () => void {
  const startedAt = clock.now();
  let timer: NodeJS.Timeout | undefined;
  const look = () => {
    const elapsedMs = clock.now() - startedAt;
    // Unreadable (gone, its exit not yet seen): the wall time stands in, the bound it had before CPU time was read.
    const cpuMs = clock.cpuTimeMs(pid) ?? elapsedMs;
    if (cpuMs >= budget.budgetMs) return over({ kind: 'cpu', cpuMs, elapsedMs });
    if (elapsedMs >= budget.wallTimeoutMs) return over({ kind: 'wall', cpuMs, elapsedMs });
    const untilSpent = Math.max(budget.budgetMs - cpuMs, budget.minCheckMs);
    timer = setTimeout(look, Math.min(untilSpent, budget.wallTimeoutMs - elapsedMs));
  };
  timer = setTimeout(look, Math.min(budget.budgetMs, budget.wallTimeoutMs));
  return () => clearTimeout(timer);
}
