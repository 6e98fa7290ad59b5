import { readdirSync, readFileSync } from 'node:fs';

/** CPU this process has used, in ms: on its main thread, and on all its other threads (V8's GC and compiler workers, libuv's pool). */
export interface ThreadCpu {
  readonly mainMs: number;
  readonly otherMs: number;
}

/** Clock ticks per second as /proc counts utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function ticksOf(statPath: string): number {
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Main thread and other threads apart, from /proc/self/task (10 ms ticks: meaningful over runs of a second or
 * more). A thread that ended since the last reading takes its time with it, so compare readings of one run only.
 */
export function threadCpu(): ThreadCpu {
  let mainTicks = 0;
  let otherTicks = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const ticks = ticksOf(`/proc/self/task/${tid}/stat`);
      if (Number(tid) === process.pid) mainTicks += ticks;
      else otherTicks += ticks;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  const ms = 1_000 / TICKS_PER_SECOND;
  return { mainMs: mainTicks * ms, otherMs: otherTicks * ms };
}

export function threadCpuSince(start: ThreadCpu): ThreadCpu {
  const now = threadCpu();
  return { mainMs: now.mainMs - start.mainMs, otherMs: now.otherMs - start.otherMs };
}
