import { spawn } from 'node:child_process';
import { fixedEnvironment } from '../../src/engine/environment.js';

export interface ClockCheck {
  /** Every Python reading fell between the Node readings taken before the request and after the answer. */
  readonly sameClock: boolean;
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
 * with Node's `process.hrtime.bigint()`. libuv reads CLOCK_MONOTONIC too on Linux, but the suite checks rather
 * than trusts it: each Python reading must lie between the Node readings around its request. A different clock
 * (another epoch) would land far outside that bracket.
 */
export function checkMonotonicClock(trips = 20): Promise<ClockCheck> {
  return new Promise((resolve, reject) => {
    const py = spawn('python3', ['-u', '-c', PROBE], { stdio: ['pipe', 'pipe', 'ignore'], env: fixedEnvironment() });
    let pending = '';
    let sentAt = 0n;
    let done = 0;
    let sameClock = true;
    let widest = 0;
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
      if (done > 0) widest = Math.max(widest, Number(answeredAt - sentAt) / 1e6);
      if (++done < trips) ask();
      else {
        py.stdin.end();
        resolve({ sameClock, trips, widestBracketMs: widest });
      }
    });
    ask();
  });
}
