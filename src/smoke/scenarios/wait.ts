import { existsSync } from 'node:fs';
import { MAX_PATTERN_CHARS, MAX_WAIT_TIMEOUT_MS, MIN_QUIET_MS } from '../../limits.js';
import type { CursorRead, SpawnWaited, WaitedRead, WriteWaited } from '../../protocol/tool-results.js';
import { expectEqual, expectThat } from '../expect.js';
import { texts } from '../harness.js';
import type { Scenario } from '../scenario.js';

const PYTHON = '/usr/bin/python3';
/** A timeout the scenario expects to run out: long enough to tell from an immediate return, short for the run. */
const SHORT_TIMEOUT_MS = 700;
/** How late past its timeout a wait may return on a loaded machine. */
const LATE_MS = 1_500;

export const wait: Scenario = {
  name: 'wait',
  summary:
    'expect in one call: a python REPL driven by pty_write waits alone, a [y/N] prompt, a timeout that ends on time, a cursor read, bad waits refused with nothing written',
  async run(h) {
    const { session } = await h.session('ses_smoke_wait');
    if (existsSync(PYTHON)) {
      const py = await session.call<SpawnWaited>('pty_spawn', {
        command: 'python3',
        args: ['-q'],
        description: 'python REPL',
        wait: { pattern: '>>> $' },
      });
      expectEqual(
        [py.reason, py.match?.text, py.match?.unfinished],
        ['match', '>>> ', true],
        'spawn waits for the first prompt (reason, line, unfinished)',
      );
      const answer = await session.call<WriteWaited>('pty_write', {
        id: py.id,
        data: 'print(6 * 7)\\n',
        wait: { pattern: '>>> $' },
      });
      expectEqual(
        [answer.reason, texts(answer.lines)],
        ['match', ['>>> 42', '>>> ']],
        'the answer and the next prompt, in the write that typed it',
      );
      const bye = await session.call<WriteWaited>('pty_write', {
        id: py.id,
        data: 'exit()\\n',
        wait: { pattern: '>>> $' },
      });
      expectEqual([bye.reason, bye.status, bye.exitCode], ['exit', 'exited', 0], 'exit() ends the wait as exit');
    }

    const ask = await session.call<SpawnWaited>('pty_spawn', {
      command: 'sh',
      args: ['-c', 'printf "Proceed? [y/N] "; read a; echo "you said $a"; exec cat'],
      description: 'asks first',
      wait: { pattern: '\\[y/N\\] $' },
    });
    expectEqual([ask.reason, ask.match?.line], ['match', 1], 'the [y/N] prompt, unfinished, ends the spawn wait');
    const said = await session.call<WriteWaited>('pty_write', {
      id: ask.id,
      data: 'y\\n',
      wait: { pattern: 'you said' },
    });
    expectEqual(said.match?.text, 'Proceed? [y/N] you said y', 'the answer to the prompt');

    const idle = await session.call<WaitedRead>('pty_read', {
      id: ask.id,
      wait: { pattern: 'never', timeoutMs: SHORT_TIMEOUT_MS },
    });
    expectThat(
      idle,
      (r) => r.reason === 'timeout' && r.waitedMs >= SHORT_TIMEOUT_MS - 10 && r.waitedMs < SHORT_TIMEOUT_MS + LATE_MS,
      `timeout after about ${SHORT_TIMEOUT_MS} ms`,
      'a wait nothing answers',
    );

    await session.call('pty_write', { id: ask.id, data: 'after\\n', wait: { pattern: '^after$' } });
    const since = await session.call<CursorRead>('pty_read', { id: ask.id, cursor: said.cursor });
    expectEqual(texts(since.lines), ['after'], 'a read from the cursor: only what came after it');

    const bad: Array<[Record<string, unknown>, string]> = [
      [{ timeout: 5 }, 'unknown key "timeout"'],
      [{ timeoutMs: MAX_WAIT_TIMEOUT_MS + 1 }, `at most ${MAX_WAIT_TIMEOUT_MS} ms`],
      [{ quietMs: 0 }, `at least ${MIN_QUIET_MS} ms`],
      [{ pattern: '(' }, 'not a valid RE2'],
      [{ pattern: 'x'.repeat(MAX_PATTERN_CHARS + 1) }, `at most ${MAX_PATTERN_CHARS} characters`],
    ];
    for (const [badWait, says] of bad) {
      const message = await session.refused(
        'pty_write',
        { id: ask.id, data: 'must not arrive\\n', wait: badWait },
        'invalid_input',
      );
      expectThat(
        message,
        (m) => m.includes(says),
        `an error saying ${says}`,
        `pty_write with wait ${JSON.stringify(badWait).slice(0, 60)}`,
      );
    }
    const after = await session.call<WaitedRead>('pty_read', {
      id: ask.id,
      cursor: since.cursor,
      wait: { quietMs: MIN_QUIET_MS, timeoutMs: SHORT_TIMEOUT_MS },
    });
    expectEqual(texts(after.lines), [], 'output after the refused writes (nothing was written)');
  },
};
