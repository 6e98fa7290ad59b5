import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_WAIT_TIMEOUT_MS, MAX_PATTERN_CHARS, MAX_WAIT_TIMEOUT_MS, MIN_QUIET_MS } from '../../src/limits.js';
import { type ResultLine, WaitedRead, WriteWaited } from '../../src/protocol/tool-results.js';
import { sleep } from '../../src/testkit/waits.js';
import { HOSTS, Session, fails, ok, useHost } from './fixtures/suite.js';

jest.setTimeout(120_000);

// Input is not echoed, so a prompt is not at the start of its line once answered (`>>> >>> ` after an assignment).
const PROMPT = '>>> $';
const texts = (lines: readonly ResultLine[]): string[] => lines.map((l) => l.text);

describe.each(HOSTS)('waits through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('drives a python REPL with pty_write waits alone: every answer and the next prompt in the same call', async () => {
    const s = new Session(ctx.host, 'ses_wait_repl');
    const spawned = await s.spawn({
      command: 'python3',
      args: ['-q'],
      description: 'python REPL',
      wait: { pattern: PROMPT },
    });
    expect(spawned).toMatchObject({ status: 'running', reason: 'match', match: { text: '>>> ', unfinished: true } });
    expect(spawned.lines.at(-1)).toEqual({ line: spawned.match?.line, text: '>>> ', unfinished: true });

    const assign = await s.call('pty_write', { id: spawned.id, data: 'x = 6 * 7\\n', wait: { pattern: PROMPT } });
    expect(ok(assign, WriteWaited)).toMatchObject({ reason: 'match', bytesWritten: 10, status: 'running' });

    const answer = ok(
      await s.call('pty_write', { id: spawned.id, data: 'print(x, "é")\\n', wait: { pattern: PROMPT } }),
      WriteWaited,
    );
    // Input is not echoed: the answer follows the old prompt on its line; the new prompt is the unfinished line.
    expect(answer.reason).toBe('match');
    expect(texts(answer.lines)).toEqual(['>>> >>> 42 é', '>>> ']);
    expect(answer.lines[1]).toMatchObject({ unfinished: true });
    expect(answer.match).toEqual({ line: answer.lines[1]?.line, text: '>>> ', unfinished: true });
    expect(answer.waitedMs).toBeLessThan(5_000);

    // A multi-line block: the continuation prompt is waited for, then the result.
    expect(
      ok(
        await s.call('pty_write', { id: spawned.id, data: 'for i in range(3):\\n', wait: { pattern: '\\.\\.\\. $' } }),
        WriteWaited,
      ).reason,
    ).toBe('match');
    const loop = ok(
      await s.call('pty_write', { id: spawned.id, data: '  print(i * i)\\n\\n', wait: { pattern: PROMPT } }),
      WriteWaited,
    );
    expect(texts(loop.lines).slice(-4)).toEqual(['>>> ... ... 0', '1', '4', '>>> ']);

    const bye = ok(
      await s.call('pty_write', { id: spawned.id, data: 'exit()\\n', wait: { pattern: PROMPT } }),
      WriteWaited,
    );
    expect(bye).toMatchObject({ reason: 'exit', status: 'exited', exitCode: 0 });
    // Nothing but the writes above touched it: not one pty_read.
    expect(ctx.host.permissionLog.filter((p) => p.metadata['tool'] === 'pty_write')).toHaveLength(5);
  });

  it('answers a [y/N] prompt and waits for what follows', async () => {
    const s = new Session(ctx.host, 'ses_wait_yn');
    const spawned = await s.spawn({
      command: 'sh',
      args: ['-c', 'printf "Delete 3 files? [y/N] "; read a; echo "answer=$a"; sleep 0.3; echo done'],
      description: 'asks',
      wait: { pattern: '\\[y/N\\] $' },
    });
    expect(spawned).toMatchObject({
      reason: 'match',
      match: { line: 1, text: 'Delete 3 files? [y/N] ', unfinished: true },
    });
    const answered = ok(
      await s.call('pty_write', { id: spawned.id, data: 'y\\n', wait: { pattern: 'answer=' } }),
      WriteWaited,
    );
    expect(answered).toMatchObject({
      reason: 'match',
      match: { line: 1, text: 'Delete 3 files? [y/N] answer=y', unfinished: false },
    });
    const rest = ok(await s.call('pty_read', { id: spawned.id, cursor: answered.cursor, wait: {} }), WaitedRead);
    expect(rest).toMatchObject({ reason: 'exit', status: 'exited' });
    expect(texts(rest.lines)).toEqual(['done']);
  });

  it('drives an interactive bash: each wait for the prompt ends on the next prompt, not the one the command was typed at', async () => {
    // Input is not echoed: readline answers Enter with a bare \n, which finishes the old prompt line unchanged.
    const s = new Session(ctx.host, 'ses_wait_bash');
    const spawned = await s.spawn({
      command: 'bash',
      args: ['--norc', '--noprofile', '-i'],
      description: 'a shell',
      wait: { pattern: '[$#] $' },
    });
    expect(spawned).toMatchObject({ reason: 'match', match: { unfinished: true } });
    for (const n of [1, 2, 3]) {
      const done = ok(
        await s.call('pty_write', {
          id: spawned.id,
          data: `sleep 0.2; echo DONE-${n}\\n`,
          wait: { pattern: '[$#] $' },
        }),
        WriteWaited,
      );
      expect(done).toMatchObject({ reason: 'match', match: { unfinished: true } });
      expect(texts(done.lines)).toContain(`DONE-${n}`);
      expect(done.match?.line).toBeGreaterThan(spawned.match?.line ?? 0);
    }
  });

  it('matches anywhere in a long unfinished line (a JSON reply with no newline), however it came in chunks', async () => {
    const s = new Session(ctx.host, 'ses_wait_long_line');
    // The status is at the start of a line far longer than the part of it a chunk's scan looked at before.
    const spawned = await s.spawn({
      command: 'python3',
      args: [
        '-c',
        'import sys, time; w = lambda s: (sys.stdout.write(s), sys.stdout.flush()); w(\'{"status": "ok", "data": "\' + \'x\' * 20000); time.sleep(1); w(\'x\' * 100); time.sleep(30)',
      ],
      description: 'long reply',
      wait: { pattern: '"status": "ok"', timeoutMs: 10_000 },
    });
    expect(spawned).toMatchObject({ reason: 'match', match: { line: 1, unfinished: true } });
    expect(spawned.match?.text).toMatch(/^\{"status": "ok"/);
    // The line grows during this wait; ^ is still its own start, not the start of its newest part.
    const anchored = ok(
      await s.call('pty_read', { id: spawned.id, wait: { pattern: '^x', timeoutMs: 2_500 } }),
      WaitedRead,
    );
    expect(anchored.reason).toBe('timeout');
    expect((await s.read(spawned.id, { tail: true, limit: 1 })).lines[0]?.text).toMatch(/x{100}$/);
    await s.call('pty_kill', { id: spawned.id });
  });

  it('steps through pdb, each command with its (Pdb) prompt in one call', async () => {
    const s = new Session(ctx.host, 'ses_wait_pdb');
    const script = join(ctx.host.projectDir, 'steps.py');
    writeFileSync(script, 'x = 1\ny = x + 41\nprint("y is", y)\n');
    const pdbPrompt = '\\(Pdb\\) $';
    const spawned = await s.spawn({
      command: 'python3',
      args: ['-m', 'pdb', script],
      description: 'pdb',
      wait: { pattern: pdbPrompt },
    });
    expect(spawned.reason).toBe('match');
    expect(texts(spawned.lines).join('\n')).toContain('-> x = 1');
    const next = ok(
      await s.call('pty_write', { id: spawned.id, data: 'n\\n', wait: { pattern: pdbPrompt } }),
      WriteWaited,
    );
    expect(texts(next.lines).join('\n')).toContain('-> y = x + 41');
    ok(await s.call('pty_write', { id: spawned.id, data: 'n\\n', wait: { pattern: pdbPrompt } }), WriteWaited);
    const printed = ok(
      await s.call('pty_write', { id: spawned.id, data: 'p y\\n', wait: { pattern: pdbPrompt } }),
      WriteWaited,
    );
    expect(texts(printed.lines)).toEqual(['(Pdb) 42', '(Pdb) ']);
    const quit = ok(
      await s.call('pty_write', { id: spawned.id, data: 'q\\n', wait: { pattern: pdbPrompt, timeoutMs: 10_000 } }),
      WriteWaited,
    );
    expect(quit.reason).toBe('exit');
  });

  it('waits for quiet after the answer began, and says so when nothing came at all (the timeout ends it)', async () => {
    const s = new Session(ctx.host, 'ses_wait_quiet');
    const { id } = await s.spawn({
      command: 'sh',
      args: ['-c', 'while read l; do echo "got $l"; sleep 0.1; echo "still $l"; done'],
      description: 'echoer',
    });
    const quiet = ok(await s.call('pty_write', { id, data: 'a\\n', wait: { quietMs: 400 } }), WriteWaited);
    // The pause of 100 ms between the two lines is shorter than quietMs: both arrive before quiet.
    expect(quiet).toMatchObject({ reason: 'quiet' });
    expect(texts(quiet.lines)).toEqual(['got a', 'still a']);
    expect(quiet.waitedMs).toBeGreaterThanOrEqual(500);
    const silent = ok(await s.call('pty_read', { id, wait: { quietMs: MIN_QUIET_MS, timeoutMs: 600 } }), WaitedRead);
    expect(silent).toMatchObject({ reason: 'timeout', lines: [] });
    expect(silent.waitedMs).toBeGreaterThanOrEqual(590);
  });

  it('hands out a cursor; a read from it gives only what came after, the unfinished line again', async () => {
    const s = new Session(ctx.host, 'ses_wait_cursor');
    const { id } = await s.spawn({ command: 'cat', description: 'cat' });
    const first = ok(await s.call('pty_write', { id, data: 'one\\ntwo\\n', wait: { pattern: '^two$' } }), WriteWaited);
    expect(first).toMatchObject({ reason: 'match', cursor: 'L3' });
    // Ctrl-D in the middle of a line hands cat what was typed so far: output that ends without a newline.
    await s.write(id, 'three\\npart\\x04');
    await s.untilOutput(id, 'part');
    const after = await s.read(id, { cursor: first.cursor });
    expect(after.lines).toEqual([
      { line: 3, text: 'three' },
      { line: 4, text: 'part', unfinished: true },
    ]);
    // On the unfinished line, which holds something: marked with what it held (L4.<mark>).
    expect(after).toMatchObject({ cursor: expect.stringMatching(/^L4\.\d+$/), hasMore: false });
    // The unfinished line comes again, grown, after the new cursor.
    await s.write(id, 'ial\\n');
    await s.untilOutput(id, 'partial');
    expect((await s.read(id, { cursor: after.cursor })).lines).toEqual([{ line: 4, text: 'partial' }]);
    // Every read carries a cursor: past the last finished line it handed out.
    expect((await s.read(id, { offset: 0, limit: 2 })).cursor).toBe('L3');
    expect((await s.read(id, { tail: true, limit: 1 })).cursor).toBe('L5');
    expect((await s.read(id, { pattern: 'one' })).cursor).toBe('L5');
    expect(fails(await s.call('pty_read', { id, cursor: 'L99' })).message).toMatch(
      /cursor: "L99" is past the end of this PTY's output \(the next line is 5, so its cursors run from L1 to L5\)/,
    );
    expect(fails(await s.call('pty_read', { id, cursor: 'L1', tail: true })).message).toMatch(
      /cursor .* cannot be combined with tail/,
    );
    expect(fails(await s.call('pty_read', { id, cursor: '12' })).message).toMatch(
      /cursor: must be a cursor from an earlier result, like "L42"/,
    );
  });

  it('waits from a cursor: what came since it counts, a prompt it was handed out on does not', async () => {
    const s = new Session(ctx.host, 'ses_wait_from_cursor');
    // A server spawned without a wait prints its ready line before the model asks: the spawn's cursor still hears it.
    const server = await s.spawn({ command: 'sh', args: ['-c', 'echo "Serving on port 8000"; exec sleep 30'] });
    expect(server.cursor).toBe('L1');
    await s.untilOutput(server.id, 'Serving');
    const ready = ok(
      await s.call('pty_read', {
        id: server.id,
        cursor: server.cursor,
        wait: { pattern: 'Serving', timeoutMs: 5_000 },
      }),
      WaitedRead,
    );
    expect(ready).toMatchObject({ reason: 'match', match: { line: 1, text: 'Serving on port 8000' } });
    expect(ready.waitedMs).toBeLessThan(1_000);
    // A read in between hands out its own cursor on the same line; the spawn's still means "from the start".
    const repl = await s.spawn({ command: 'python3', args: ['-q'] });
    await s.untilOutput(repl.id, '>>> ');
    expect((await s.read(repl.id)).cursor).toMatch(/^L1\.\d+$/);
    const prompt = ok(
      await s.call('pty_read', { id: repl.id, cursor: repl.cursor, wait: { pattern: '>>> $', timeoutMs: 5_000 } }),
      WaitedRead,
    );
    expect(prompt.reason).toBe('match');
    // A quiet wait from a cursor counts the output since it as come: quiet from the start, not a timeout.
    const built = await s.write(repl.id, 'print("built")\\n');
    await s.untilOutput(repl.id, /built\n>>> $/);
    const quiet = ok(
      await s.call('pty_read', { id: repl.id, cursor: built.cursor, wait: { quietMs: 300, timeoutMs: 5_000 } }),
      WaitedRead,
    );
    expect(quiet.reason).toBe('quiet');
    expect(texts(quiet.lines)).toContain('>>> built');
    // Without the cursor only what comes during the call counts, as documented.
    const during = ok(
      await s.call('pty_read', { id: server.id, wait: { pattern: 'Serving', timeoutMs: 300 } }),
      WaitedRead,
    );
    expect(during.reason).toBe('timeout');

    // A command typed without a wait at a shell's prompt: its write's cursor is on that prompt, which the Enter
    // finishes unchanged; the wait from it ends on the next prompt, with the command's output.
    const shell = await s.spawn({
      command: 'bash',
      args: ['--norc', '--noprofile', '-i'],
      wait: { pattern: '[$#] $' },
    });
    const typed = await s.write(shell.id, 'sleep 0.3; echo DONE\\n');
    // On the prompt's line, marked with the prompt: a cursor of its own, not the spawn's.
    expect(typed.cursor).toMatch(new RegExp(`^L${shell.match?.line}\\.\\d+$`));
    expect(typed.cursor).not.toBe(shell.cursor);
    const answered = ok(
      await s.call('pty_read', { id: shell.id, cursor: typed.cursor, wait: { pattern: '[$#] $' } }),
      WaitedRead,
    );
    expect(answered).toMatchObject({ reason: 'match', match: { unfinished: true } });
    expect(texts(answered.lines)).toContain('DONE');
    expect(answered.match?.line).toBeGreaterThan(shell.match?.line ?? 0);
  });

  it('says how many lines after an old cursor a flood dropped', async () => {
    const s = new Session(ctx.host, 'ses_wait_dropped');
    const { id } = await s.spawn({
      command: 'seq',
      args: ['1', '300000'],
      description: 'flood',
      wait: { timeoutMs: 60_000 },
    });
    const read = await s.read(id, { cursor: 'L1', limit: 2 });
    expect(read.missedLines).toBe(read.firstLine - 1);
    expect(read.missedLines).toBeGreaterThan(0);
    expect(read.lines).toEqual([
      { line: read.firstLine, text: String(read.firstLine) },
      { line: read.firstLine + 1, text: String(read.firstLine + 1) },
    ]);
    expect(read).toMatchObject({ hasMore: true, cursor: `L${read.firstLine + 2}` });
    // With a wait too: the lines after the cursor are the result, and nothing the wait said of its own lines is left.
    const waited = ok(await s.call('pty_read', { id, cursor: 'L1', limit: 2, wait: { timeoutMs: 5_000 } }), WaitedRead);
    expect(waited.lines).toEqual(read.lines);
    expect([waited.omittedLines, waited.outputCursor, waited.droppedLines]).toEqual([undefined, undefined, undefined]);
  });

  it('ends on time while a flood pours in, and the host keeps answering meanwhile', async () => {
    const s = new Session(ctx.host, 'ses_wait_flood');
    const { id } = await s.spawn({ command: 'yes', args: ['flood line'], description: 'flood' });
    const started = Date.now();
    const waiting = s.call('pty_read', { id, limit: 100, wait: { pattern: 'never printed', timeoutMs: 1_500 } });
    const listTimes: number[] = [];
    while (Date.now() - started < 1_200) {
      const t = Date.now();
      await s.list();
      listTimes.push(Date.now() - t);
      await sleep(100);
    }
    const result = ok(await waiting, WaitedRead);
    const elapsed = Date.now() - started;
    expect(result.reason).toBe('timeout');
    expect(elapsed).toBeLessThan(4_000);
    expect(Math.max(...listTimes)).toBeLessThan(1_000);
    expect(result.lines.length).toBeGreaterThan(0);
    // Bounded like any read (limit), the newest lines; the rest is counted and readable from outputCursor.
    expect(result.lines.length).toBe(100);
    expect(result.lines.at(-1)?.line).toBeGreaterThan(result.lines[0]?.line ?? Number.POSITIVE_INFINITY);
    expect(result.omittedLines).toBeGreaterThan(0);
    expect(result.outputCursor).toMatch(/^L\d+$/);
  });

  it('runs 16 waits at once (4 sessions x 4 PTYs), each settled by its own answer', async () => {
    const sessions = [0, 1, 2, 3].map((n) => new Session(ctx.host, `ses_wait_many_${n}`));
    const ptys = await Promise.all(
      sessions.flatMap((s) =>
        [0, 1, 2, 3].map(async () => ({ s, id: (await s.spawn({ command: 'cat', description: 'cat' })).id as string })),
      ),
    );
    expect(ptys).toHaveLength(16);
    const results = await Promise.all(
      ptys.map(({ s, id }, n) =>
        s.call('pty_write', { id, data: `ping ${n}\\n`, wait: { pattern: `^ping ${n}$`, timeoutMs: 20_000 } }),
      ),
    );
    for (const [n, r] of results.entries()) {
      expect(ok(r, WriteWaited)).toMatchObject({ reason: 'match', match: { line: 1, text: `ping ${n}` } });
    }
  });

  it('a wait ends at once when the call is aborted, the PTY killed, its owner deleted, or the plugin closed', async () => {
    const s = new Session(ctx.host, 'ses_wait_ends');
    const { id } = await s.spawn({ command: 'cat', description: 'cat' });
    const controller = new AbortController();
    const aborted = s.call('pty_read', { id, wait: { pattern: 'x' } }, { signal: controller.signal });
    await sleep(200);
    controller.abort(new Error('Esc'));
    const abortOutcome = await aborted;
    expect(ok(abortOutcome, WaitedRead)).toMatchObject({ reason: 'aborted' });

    const killedWait = s.call('pty_read', { id, wait: { pattern: 'x' } });
    await sleep(200);
    const started = Date.now();
    await s.kill(id);
    // It says how the program ended, as pty_kill and pty_list do (cat ends at TERM).
    expect(ok(await killedWait, WaitedRead)).toMatchObject({ reason: 'killed', status: 'killed', exitCode: 143 });
    expect(Date.now() - started).toBeLessThan(5_000);

    const d = new Session(ctx.host, 'ses_wait_deleted');
    const cat = await d.spawn({ command: 'cat', description: 'cat' });
    const deletedWait = d.call('pty_read', { id: cat.id, wait: { pattern: 'x' } });
    await sleep(200);
    await ctx.host.deleteSession('ses_wait_deleted');
    const deletedOutcome = await deletedWait;
    expect(ok(deletedOutcome, WaitedRead)).toMatchObject({ reason: 'owner_deleted' });

    const c = new Session(ctx.host, 'ses_wait_closed');
    const cat2 = await c.spawn({ command: 'cat', description: 'cat' });
    const closedWait = c.call('pty_read', { id: cat2.id, wait: { pattern: 'x', timeoutMs: MAX_WAIT_TIMEOUT_MS } });
    await sleep(200);
    const closing = Date.now();
    await ctx.host.close();
    const closedOutcome = await closedWait;
    expect(ok(closedOutcome, WaitedRead)).toMatchObject({ reason: 'closed' });
    expect(Date.now() - closing).toBeLessThan(10_000);
  });

  it('refuses a bad wait with a clear error naming the limit, and writes nothing', async () => {
    const s = new Session(ctx.host, 'ses_wait_bad');
    const { id } = await s.spawn({ command: 'cat', description: 'cat' });
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ patern: 'x' }, /wait: unknown key "patern"; a wait takes pattern, ignoreCase, quietMs, timeoutMs/],
      [{ timeoutMs: MAX_WAIT_TIMEOUT_MS + 1 }, new RegExp(`wait.timeoutMs: must be at most ${MAX_WAIT_TIMEOUT_MS} ms`)],
      [{ quietMs: 0 }, new RegExp(`wait.quietMs: must be at least ${MIN_QUIET_MS} ms`)],
      [{ pattern: '(unclosed' }, /wait\.pattern: not a valid RE2 syntax .* pattern: .*missing closing \)/],
      [
        { pattern: 'a'.repeat(MAX_PATTERN_CHARS + 1) },
        new RegExp(`wait.pattern: at most ${MAX_PATTERN_CHARS} characters`),
      ],
      [{ pattern: String.raw`(a)\1` }, /not a valid RE2 syntax/],
      [{ ignoreCase: true }, /wait.ignoreCase only applies with wait.pattern/],
    ];
    for (const [wait, message] of bad) {
      const failure = fails(await s.call('pty_write', { id, data: 'should not arrive\\n', wait }));
      expect(failure.message).toMatch(message);
    }
    expect(ctx.host.permissionLog.filter((p) => p.metadata['tool'] === 'pty_write')).toHaveLength(0);
    expect(
      fails(await s.call('pty_spawn', { command: 'cat', description: 'cat', watch: [{ pattern: '[' }] })).message,
    ).toMatch(/watch\[0\]\.pattern: not a valid RE2/);
    expect(
      fails(await s.call('pty_spawn', { command: 'cat', description: 'cat', watch: [{ pattern: 'x', every: 1 }] }))
        .message,
    ).toMatch(/unknown key "every"; a watch rule takes pattern, ignoreCase/);
    expect(ctx.host.permissionLog.filter((p) => p.metadata['tool'] === 'pty_spawn')).toHaveLength(1);
    await sleep(200);
    expect((await s.read(id)).lines).toEqual([]);
    expect(DEFAULT_WAIT_TIMEOUT_MS).toBeLessThanOrEqual(MAX_WAIT_TIMEOUT_MS);
  });
});
