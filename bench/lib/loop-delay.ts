/** More samples than any suite's run takes at 1 ms apart (16 minutes): the monitor stops recording past it. */
const MAX_SAMPLES = 1_000_000;

/** Event-loop delay in ms while enabled: p99 and max of how late each tick of a timer chain ran. */
export interface LoopDelay {
  enable(): void;
  disable(): void;
  percentile(p: number): number;
  readonly max: number;
}

/**
 * The host's event-loop delay, measured the same way in Node and Bun: a chain of `setTimeout(resolutionMs)`, each
 * tick recording how much later than asked it ran. `perf_hooks.monitorEventLoopDelay` cannot serve both: Bun 1.3's
 * keeps one set of samples for every histogram of the process (a second one enabled 100 ms later reported the same
 * count and values as the first, so the lag suite's "once all run" rows repeated its "spawns included" ones), and its
 * samples leave out the timer's period where Node's include it (a 2 ms chain: p50 0.09 ms in Bun, 1.10 in Node).
 */
export function loopDelay(resolutionMs: number): LoopDelay {
  const samples: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const tick = () => {
    const now = performance.now();
    if (samples.length < MAX_SAMPLES) samples.push(Math.max(now - last - resolutionMs, 0));
    last = now;
    timer = setTimeout(tick, resolutionMs);
  };
  let sorted: number[] | undefined;
  const ordered = () => {
    sorted ??= [...samples].sort((a, b) => a - b);
    return sorted;
  };
  return {
    enable() {
      last = performance.now();
      timer = setTimeout(tick, resolutionMs);
    },
    disable() {
      clearTimeout(timer);
      timer = undefined;
      sorted = undefined;
    },
    percentile(p: number) {
      const s = ordered();
      return s.length === 0 ? 0 : (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number);
    },
    get max() {
      const s = ordered();
      return s.length === 0 ? 0 : (s[s.length - 1] as number);
    },
  };
}
