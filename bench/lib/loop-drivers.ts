import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { fixedEnvironment } from '../../src/engine/environment.js';
import type { SpawnWaited, WriteWaited } from '../../src/protocol/tool-results.js';
import { sleep } from '../../src/testkit/waits.js';
import { monotonicNs } from './monotonic.js';
import type { PluginHarness } from './plugin-harness.js';
import { sameTerminalCommand } from './raw.js';
import { childrenOf, type HostUse, hostUseSince } from './runqueue.js';
import { answerIn, type Interaction, PROMPT_PATTERN, PYTHON_REPL, SETUP, SETUP_DONE } from './repl-interactions.js';
import { TmuxAgent } from './tmux-agent.js';

/** The longest one interaction may take on any side before it counts as failed. */
export const ANSWER_TIMEOUT_MS = 15_000;
/** A pty_read poll after a wait that returned without the answer (it should not happen; counted if it does). */
const FOLLOW_UP_POLL_MS = 20;

/**
 * What the host and the interaction's processes used while it ran (HostUse); each null where not measured (tmux: its
 * server and clients are other processes).
 */
export type MeasuredUse = { readonly [K in keyof HostUse]: HostUse[K] | null };

const NOT_MEASURED: MeasuredUse = { cpuWaitMs: null, helperCpuMs: null, mainCpuMs: null, faults: null };

export interface Outcome extends MeasuredUse {
  /** From sending the input to having the answer, ms. */
  readonly latencyMs: number;
  /** From the program's own output time (its CLOCK_MONOTONIC stamp) to having the answer, ms. */
  readonly lateMs: number;
  /** Calls the driver made: tool calls (local-pty), or tmux client processes (tmux). */
  readonly calls: number;
  /** Agent turns: model tool calls that ended with a result in front of the model. */
  readonly turns: number;
  /** Processes started for this interaction. */
  readonly processes: number;
}

export interface LoopDriver {
  readonly label: string;
  /** The outcome, or a string saying what went wrong (the answer never came). */
  run(it: Interaction): Promise<Outcome | string>;
  close(): Promise<void>;
}

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/** local-pty: one pty_write per interaction that types the statement and waits for its answer in the same call. */
export class PluginDriver implements LoopDriver {
  readonly label = 'local-pty pty_write + wait.pattern';

  private constructor(
    private readonly harness: PluginHarness,
    private readonly owner: string,
    private readonly id: string,
    /** script and the program. */
    private readonly pids: readonly number[],
  ) {}

  static async open(harness: PluginHarness, owner: string): Promise<PluginDriver> {
    const spawned = await harness.call<SpawnWaited>(
      'pty_spawn',
      {
        command: PYTHON_REPL[0],
        args: PYTHON_REPL.slice(1),
        description: 'bench loop: python REPL',
        wait: { pattern: PROMPT_PATTERN, timeoutMs: ANSWER_TIMEOUT_MS },
      },
      owner,
    );
    const pids = [spawned.pid, spawned.commandPid].filter((p): p is number => typeof p === 'number');
    const driver = new PluginDriver(harness, owner, spawned.id, pids);
    if (spawned.reason !== 'match') {
      await driver.close();
      throw new Error(`python3 -i under local-pty showed no prompt (${spawned.reason})`);
    }
    const setup = await driver.write(SETUP, SETUP_DONE);
    if (setup.value.reason !== 'match') {
      await driver.close();
      throw new Error(`python3 -i under local-pty: setup ended with ${setup.value.reason}`);
    }
    return driver;
  }

  private write(text: string, pattern: string) {
    return this.harness.timedCall<WriteWaited>(
      'pty_write',
      { id: this.id, input: [{ text }, { key: 'Enter' }], wait: { pattern, timeoutMs: ANSWER_TIMEOUT_MS } },
      this.owner,
    );
  }

  async run(it: Interaction): Promise<Outcome | string> {
    const use = hostUseSince(this.pids);
    const { value, calledAt, returnedAt } = await this.write(it.statement, it.waitPattern);
    const used = use.done();
    let calls = 1;
    let printed = answerIn(
      value.lines.map((l) => l.text),
      it,
    );
    let answeredAt = returnedAt;
    // The wait matched but its lines lack the answer, or it gave up: read the newest lines until it shows.
    while (printed === undefined) {
      if (ms(calledAt, monotonicNs()) > ANSWER_TIMEOUT_MS) {
        return `no answer after ${calls} calls (wait ended: ${value.reason})`;
      }
      await sleep(FOLLOW_UP_POLL_MS);
      const page = await this.harness.timedCall<{ lines: Array<{ text: string }> }>(
        'pty_read',
        { id: this.id, tail: true, limit: 50 },
        this.owner,
      );
      calls++;
      printed = answerIn(
        page.value.lines.map((l) => l.text),
        it,
      );
      answeredAt = page.returnedAt;
    }
    return {
      latencyMs: ms(calledAt, answeredAt),
      lateMs: ms(printed, answeredAt),
      calls,
      turns: calls,
      processes: 0,
      ...used,
    };
  }

  async close(): Promise<void> {
    await this.harness.kill(this.owner, this.id).catch(() => undefined);
  }
}

/**
 * tmux as Terminal-Bench-style agents drive it: `send-keys -l STATEMENT ; send-keys Enter` (one client process),
 * then sleep `intervalMs` and `capture-pane -p` (the visible pane, where the end of any output is), again and
 * again until the answer shows. `harnessPolls`: the polling runs inside one agent tool call (one turn, however
 * many captures); otherwise each capture is a turn of its own (the agent waited a fixed time, looked, and has to
 * ask for another wait when the answer is not there yet).
 */
export class TmuxDriver implements LoopDriver {
  private constructor(
    readonly label: string,
    private readonly agent: TmuxAgent,
    private readonly intervalMs: number,
    private readonly harnessPolls: boolean,
  ) {}

  static async open(label: string, intervalMs: number, harnessPolls: boolean): Promise<TmuxDriver> {
    const agent = await TmuxAgent.start(PYTHON_REPL);
    const driver = new TmuxDriver(label, agent, intervalMs, harnessPolls);
    try {
      await driver.until((rows) => rows.some((r) => /^>>>/.test(r)), 'the first prompt');
      await agent.sendLine(SETUP);
      await driver.until((rows) => rows.some((r) => new RegExp(SETUP_DONE).test(r)), 'the setup');
    } catch (err) {
      await driver.close();
      throw err;
    }
    return driver;
  }

  /** Setup only: polls every 20 ms until `ready`. */
  private async until(ready: (rows: string[]) => boolean, what: string): Promise<void> {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    while (!ready(await this.agent.capture())) {
      if (Date.now() > deadline) throw new Error(`tmux: no ${what} within ${ANSWER_TIMEOUT_MS} ms`);
      await sleep(20);
    }
  }

  async run(it: Interaction): Promise<Outcome | string> {
    const before = this.agent.invocations;
    const sentAt = monotonicNs();
    await this.agent.sendLine(it.statement);
    let captures = 0;
    for (;;) {
      await sleep(this.intervalMs);
      const rows = await this.agent.capture();
      const seenAt = monotonicNs();
      captures++;
      const printed = answerIn(rows, it);
      if (printed !== undefined) {
        const calls = this.agent.invocations - before;
        return {
          latencyMs: ms(sentAt, seenAt),
          lateMs: ms(printed, seenAt),
          calls,
          turns: this.harnessPolls ? 1 : captures,
          processes: calls,
          ...NOT_MEASURED,
        };
      }
      if (ms(sentAt, seenAt) > ANSWER_TIMEOUT_MS) return `no answer after ${captures} captures`;
    }
  }

  close(): Promise<void> {
    return this.agent.kill();
  }
}

/**
 * The raw driver keeps this much of the newest output to look for an answer in: the answer and the prompt after it
 * (under 60 characters) are at its end. Small, so that its work per `data` event stays a floor: at 8192 (through the
 * thirty-fifth session) it split and matched ~800 lines per chunk of the long print, 1,300–2,100 chunks of it.
 */
const RAW_TAIL_CHARS = 512;

/**
 * The floor for any Node host: the same REPL under raw `script` (the plugin's terminal setup: 40×120, -onlcr,
 * no echo), written to directly and read by Node, the answer looked for in the newest output on every `data`
 * event. No tool call, no buffer, no wait: "answer − program's output" here is what script and the pipe cost.
 */
export class RawScriptDriver implements LoopDriver {
  readonly label = 'raw script → Node data event';
  private tail = '';
  private readonly decoder = new StringDecoder('utf8');
  private onData: (() => void) | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.tail = (this.tail + this.decoder.write(chunk)).slice(-RAW_TAIL_CHARS);
      this.onData?.();
    });
    child.stderr?.resume();
  }

  static async open(): Promise<RawScriptDriver> {
    const child = spawn(
      '/usr/bin/script',
      ['-q', '-e', '-E', 'never', '-c', sameTerminalCommand(`exec ${PYTHON_REPL.join(' ')}`), '/dev/null'],
      { stdio: ['pipe', 'pipe', 'pipe'], env: fixedEnvironment(), detached: true },
    );
    const driver = new RawScriptDriver(child);
    try {
      await driver.until(new RegExp(SETUP_DONE), () => child.stdin?.write(`${SETUP}\r`));
    } catch (err) {
      await driver.close();
      throw err;
    }
    return driver;
  }

  /** Runs `send`, then resolves at the first data event after which some line of the tail passes `found`. */
  private until<T>(found: RegExp | ((lines: string[]) => T | undefined), send: () => void): Promise<T | true> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onData = undefined;
        reject(new Error(`raw script: no answer within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
      this.onData = () => {
        const lines = this.tail.split('\n');
        const hit = found instanceof RegExp ? (lines.some((l) => found.test(l)) ? true : undefined) : found(lines);
        if (hit === undefined) return;
        clearTimeout(timer);
        this.onData = undefined;
        resolve(hit);
      };
      send();
    });
  }

  async run(it: Interaction): Promise<Outcome | string> {
    this.tail = '';
    // script's only child is the program (the shell before it exec'd into it).
    const pids = this.child.pid === undefined ? [] : [this.child.pid, ...childrenOf(this.child.pid)];
    const use = hostUseSince(pids);
    let sentAt = 0n;
    let answeredAt = 0n;
    try {
      const printed = await this.until(
        (lines) => {
          const stamp = answerIn(lines, it);
          if (stamp !== undefined) answeredAt = monotonicNs();
          return stamp;
        },
        () => {
          sentAt = monotonicNs();
          this.child.stdin?.write(`${it.statement}\r`);
        },
      );
      if (printed === true) return 'no stamp';
      return {
        latencyMs: ms(sentAt, answeredAt),
        lateMs: ms(printed, answeredAt),
        calls: 1,
        turns: 1,
        processes: 0,
        ...use.done(),
      };
    } catch (err) {
      return (err as Error).message;
    }
  }

  async close(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const closed = new Promise((resolve) => this.child.once('close', resolve));
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await closed;
  }
}
