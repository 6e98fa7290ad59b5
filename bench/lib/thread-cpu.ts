import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU this process has used, in ms: on its main thread, on JavaScriptCore's JIT compiler thread (`JITWorker`, Bun),
 * and on all its other threads (the GC's helpers; in Node, whose threads all go by `node`, V8's compiler workers and
 * libuv's pool as well).
 */
export interface ThreadCpu {
  readonly mainMs: number;
  readonly compilerMs: number;
  readonly otherMs: number;
}

/** Clock ticks per second as /proc counts utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The name JavaScriptCore gives the thread its optimizing compiles run on (seen in OpenCode 1.18's Bun 1.3.14). */
const COMPILER_THREAD = 'JITWorker';

function readStat(statPath: string): { name: string; ticks: number } {
  // The command name is in parentheses and may hold spaces; after it, utime and stime are fields 14 and 15.
  const stat = readFileSync(statPath, 'utf8');
  const close = stat.lastIndexOf(') ');
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
}

/**
 * Main thread, compiler thread and other threads apart, from /proc/self/task (10 ms ticks: meaningful over runs of
 * a second or more). A thread that ended since the last reading takes its time with it, so compare readings of one
 * run only.
 */
export function threadCpu(): ThreadCpu {
  let mainTicks = 0;
  let compilerTicks = 0;
  let otherTicks = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const { name, ticks } = readStat(`/proc/self/task/${tid}/stat`);
      if (Number(tid) === process.pid) mainTicks += ticks;
      else if (name === COMPILER_THREAD) compilerTicks += ticks;
      else otherTicks += ticks;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  const ms = 1_000 / TICKS_PER_SECOND;
  return { mainMs: mainTicks * ms, compilerMs: compilerTicks * ms, otherMs: otherTicks * ms };
}

export function threadCpuSince(start: ThreadCpu): ThreadCpu {
  const now = threadCpu();
  return {
    mainMs: now.mainMs - start.mainMs,
    compilerMs: now.compilerMs - start.compilerMs,
    otherMs: now.otherMs - start.otherMs,
  };
}
