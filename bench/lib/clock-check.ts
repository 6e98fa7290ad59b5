import { spawn } from 'node:child_process';
import { fixedEnvironment } from '../../src/engine/environment.js';

/** An offset known no better than this (half the tightest bracket) leaves the 'answer − output' rows void. */
export const MAX_CLOCK_UNCERTAINTY_MS = 0.1;

export interface ClockCheck {
  /** Every Python reading fell between the host readings taken before the request and after the answer. */
  readonly sameClock: boolean;
  /**
   * Python's clock minus the host's `process.hrtime`, in ns: 0 when they are the same clock, else the middle of
   * the offsets every trip allows; null when no single offset fits every trip (not one clock shifted).
   */
  readonly offsetNs: bigint | null;
  /** Half the width of the offsets every trip allows, in ms: how well the offset is known. */
  readonly uncertaintyMs: number;
  readonly trips: number;
  /** The widest bracket (answer − request) after the first trip (which waits for Python to start), in ms. */
  readonly widestBracketMs: number;
}

const PROBE = [
  'import sys, time',
  'for _ in sys.stdin:',
  '    print(time.clock_gettime_ns(time.CLOCK_MONOTONIC), flush=True)',
].join('\n');

/**
 * The loop suite compares Python's `time.clock_gettime_ns(CLOCK_MONOTONIC)` (stamped into the program's answer)
 * with the host's `process.hrtime.bigint()`, and checks rather than trusts that they agree. A reading taken between
 * the host's readings `sent` and `answered` bounds the offset between the clocks to [reading − answered, reading −
 * sent]; every trip narrows it. Node's libuv reads CLOCK_MONOTONIC, so there 0 is in every bracket. Bun's hrtime
 * counts from its own start: one constant offset then fits every trip, known to half the tightest bracket.
 */
export function checkMonotonicClock(trips = 200): Promise<ClockCheck> {
  return new Promise((resolve, reject) => {
    const py = spawn('python3', ['-u', '-c', PROBE], { stdio: ['pipe', 'pipe', 'ignore'], env: fixedEnvironment() });
    let pending = '';
    let sentAt = 0n;
    let done = 0;
    let sameClock = true;
    let widest = 0;
    let low: bigint | undefined;
    let high: bigint | undefined;
    const ask = () => {
      sentAt = process.hrtime.bigint();
      py.stdin.write('t\n');
    };
    py.once('error', reject);
    py.stdout.setEncoding('utf8');
    py.stdout.on('data', (text: string) => {
      const answeredAt = process.hrtime.bigint();
      pending += text;
      const nl = pending.indexOf('\n');
      if (nl < 0) return;
      const stamp = BigInt(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      if (stamp < sentAt || stamp > answeredAt) sameClock = false;
      if (low === undefined || stamp - answeredAt > low) low = stamp - answeredAt;
      if (high === undefined || stamp - sentAt < high) high = stamp - sentAt;
      if (done > 0) widest = Math.max(widest, Number(answeredAt - sentAt) / 1e6);
      if (++done < trips) ask();
      else {
        py.stdin.end();
        const fits = low !== undefined && high !== undefined && low <= high;
        resolve({
          sameClock,
          offsetNs: sameClock ? 0n : fits ? ((low as bigint) + (high as bigint)) / 2n : null,
          uncertaintyMs: fits ? Number((high as bigint) - (low as bigint)) / 2e6 : Number.POSITIVE_INFINITY,
          trips,
          widestBracketMs: widest,
        });
      }
    });
    ask();
  });
}
