import { type BudgetClock, type BudgetVerdict, watchCpuBudget } from '../../src/search/cpu-budget.js';

const BUDGET = { budgetMs: 250, wallTimeoutMs: 2_000, minCheckMs: 10 };

/**
 * A process whose CPU time is `share` of the wall time since it started (1: it has a core to itself; 0: it waits
 * for one), on jest's fake clock; `looks` records when the watcher read it.
 */
function fakeProcess(share: () => number | undefined) {
  const looks: number[] = [];
  let cpu = 0;
  let last = 0;
  const clock: BudgetClock = {
    now: () => Date.now(),
    cpuTimeMs: () => {
      const now = Date.now();
      const s = share();
      if (s === undefined) return undefined;
      cpu += (now - last) * s;
      last = now;
      looks.push(now);
      return cpu;
    },
  };
  return { clock, looks };
}

describe('watchCpuBudget', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  function watch(share: () => number | undefined, budget = BUDGET) {
    const { clock, looks } = fakeProcess(share);
    const verdicts: BudgetVerdict[] = [];
    const cancel = watchCpuBudget(1234, budget, (v) => verdicts.push(v), clock);
    return { looks, verdicts, cancel };
  }

  /** Nothing until `atMs`, then `verdict` alone. */
  function expectOnlyAt(verdicts: BudgetVerdict[], atMs: number, verdict: BudgetVerdict) {
    jest.advanceTimersByTime(atMs - 1);
    expect(verdicts).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(verdicts).toEqual([verdict]);
  }

  it('stops a process that has a core once it has used the budget, with one look', () => {
    const { looks, verdicts } = watch(() => 1);
    expectOnlyAt(verdicts, 250, { kind: 'cpu', cpuMs: 250, elapsedMs: 250 });
    expect(looks).toEqual([250]);
  });

  it('lets a process that gets half a core run twice as long, looking again when the rest could be spent', () => {
    const { looks, verdicts } = watch(() => 0.5);
    jest.advanceTimersByTime(2_000);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'cpu' });
    // Spent at 500 ms; the last look comes within minCheckMs of it, the earlier ones at least minCheckMs apart.
    expect(verdicts[0]!.elapsedMs).toBeGreaterThanOrEqual(500);
    expect(verdicts[0]!.elapsedMs).toBeLessThanOrEqual(500 + BUDGET.minCheckMs);
    expect(looks[0]).toBe(250);
    expect(looks.length).toBeLessThanOrEqual(8);
    for (let i = 1; i < looks.length; i++) expect(looks[i]! - looks[i - 1]!).toBeGreaterThanOrEqual(BUDGET.minCheckMs);
  });

  it('stops a process that never gets the CPU at the wall timeout, as "wall", looking once per budget', () => {
    const { looks, verdicts } = watch(() => 0);
    expectOnlyAt(verdicts, 2_000, { kind: 'wall', cpuMs: 0, elapsedMs: 2_000 });
    expect(looks).toEqual([250, 500, 750, 1_000, 1_250, 1_500, 1_750, 2_000]);
  });

  it('falls back to the wall time when the CPU time cannot be read', () => {
    const { verdicts } = watch(() => undefined);
    jest.advanceTimersByTime(250);
    expect(verdicts).toEqual([{ kind: 'cpu', cpuMs: 250, elapsedMs: 250 }]);
  });

  it('looks first at the wall timeout when it is shorter than the budget', () => {
    const { looks, verdicts } = watch(() => 0, { budgetMs: 250, wallTimeoutMs: 100, minCheckMs: 10 });
    jest.advanceTimersByTime(100);
    expect(verdicts).toEqual([{ kind: 'wall', cpuMs: 0, elapsedMs: 100 }]);
    expect(looks).toEqual([100]);
  });

  it('does nothing more once cancelled', () => {
    const { looks, verdicts, cancel } = watch(() => 0.1);
    jest.advanceTimersByTime(300);
    cancel();
    jest.advanceTimersByTime(5_000);
    expect(verdicts).toEqual([]);
    expect(looks).toEqual([250]);
  });
});
