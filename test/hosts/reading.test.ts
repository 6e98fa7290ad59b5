import {
  CANONICAL_LINE_MAX_BYTES,
  GREP_CPU_BUDGET_MS,
  LINE_OVERHEAD_CHARS,
  MAX_BUFFER_CHARS,
  MAX_GREP_WORKERS,
  MAX_LINE_CHARS,
  MAX_RAW_CHARS,
  MAX_READ_LIMIT,
  MAX_READ_OFFSET,
} from '../../src/limits.js';
import { MatchesRead } from '../../src/protocol/tool-results.js';
import { waitFor } from '../../src/testkit/waits.js';
import { HOSTS, Session, fails, ok, useHost } from './fixtures/suite.js';

jest.setTimeout(120_000);

const FLOOD_LINES = 300_000;

describe.each(HOSTS)('reading through the %s host', (_name, factory) => {
  const ctx = useHost(factory);

  it('pages with absolute line numbers, and counts what flooding dropped', async () => {
    const s = new Session(ctx.host, 'ses_flood');
    // 300k numbered lines are ~2 MB: well past the 1,000,000-character buffer.
    const { id } = await s.spawn({ command: 'seq', args: ['1', String(FLOOD_LINES)], description: 'flood' });
    await s.untilStatus(id, ['exited'], 60_000);

    const head = await s.read(id, { offset: 0, limit: 3 });
    expect(head.totalLines).toBe(FLOOD_LINES);
    expect(head.droppedLines).toBeGreaterThan(0);
    expect(head.firstLine).toBe(head.droppedLines + 1);
    expect(head.retainedLines).toBe(FLOOD_LINES - head.droppedLines);
    // What is kept fits the bound, and fills it: each line counts its length, its newline and the overhead.
    const lineCost = (n: number) => String(n).length + 1 + LINE_OVERHEAD_CHARS;
    const kept = Array.from({ length: head.retainedLines }, (_, i) => lineCost(head.firstLine + i)).reduce(
      (a, b) => a + b,
      0,
    );
    expect(kept).toBeLessThanOrEqual(MAX_BUFFER_CHARS);
    expect(kept + lineCost(head.firstLine - 1)).toBeGreaterThan(MAX_BUFFER_CHARS);
    // Line n holds the number n: the line numbers are absolute.
    expect(head.lines).toEqual([0, 1, 2].map((i) => ({ line: head.firstLine + i, text: String(head.firstLine + i) })));
    expect(head).toMatchObject({ offset: 0, returned: 3, hasMore: true, nextOffset: 3 });

    const tail = await s.read(id, { tail: true, limit: 3 });
    expect(tail.lines).toEqual(
      [FLOOD_LINES - 2, FLOOD_LINES - 1, FLOOD_LINES].map((n) => ({ line: n, text: String(n) })),
    );
    expect(tail).toMatchObject({ offset: head.retainedLines - 3, returned: 3, hasMore: false, nextOffset: null });

    const page = await s.read(id, { offset: MAX_READ_OFFSET, limit: MAX_READ_LIMIT });
    expect(page.returned).toBe(MAX_READ_LIMIT);
    expect(page.lines[0]).toEqual({
      line: head.firstLine + MAX_READ_OFFSET,
      text: String(head.firstLine + MAX_READ_OFFSET),
    });
    // More lines follow, but no offset past MAX_READ_OFFSET would be accepted: no nextOffset, a note instead.
    expect(page).toMatchObject({
      hasMore: true,
      nextOffset: null,
      note: expect.stringContaining(`offset is at most ${MAX_READ_OFFSET}: go on from this read's cursor`),
    });
    // The cursor the note points to does go on: the line after the page comes first.
    const onward = await s.read(id, { cursor: page.cursor, limit: 1 });
    expect(onward.lines[0]?.line).toBe(head.firstLine + MAX_READ_OFFSET + MAX_READ_LIMIT);
    expect(fails(await s.call('pty_read', { id, offset: MAX_READ_OFFSET + 1 })).message).toMatch(/at most 10000/);
    // Up to the limit, nextOffset is one the tool accepts.
    const before = await s.read(id, { offset: MAX_READ_OFFSET - 5, limit: 5 });
    expect(before).toMatchObject({ hasMore: true, nextOffset: MAX_READ_OFFSET });
    expect(before.note).toBeUndefined();
    expect((await s.read(id, { offset: before.nextOffset, limit: 1 })).returned).toBe(1);

    // A search reports absolute line numbers too.
    const found = await s.read(id, { pattern: `^${FLOOD_LINES - 1}$` });
    expect(found.lines).toEqual([{ line: FLOOD_LINES - 1, text: String(FLOOD_LINES - 1) }]);
    // And says it searched only the kept lines: a count of matches is not the whole output's.
    expect(found.note).toBe(
      `searched lines ${head.firstLine}–${FLOOD_LINES}, the ones kept; the ${head.droppedLines} before them were dropped from the buffer (it keeps the newest output).`,
    );
  });

  it('renders what the model reads, and keeps the raw terminal text on request', async () => {
    const s = new Session(ctx.host, 'ses_raw');
    const script = "printf '\\033[31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n'";
    const { id } = await s.spawn({ command: 'sh', args: ['-c', script], description: 'colors and a progress bar' });
    await s.untilStatus(id, ['exited']);
    const clean = await s.read(id, {});
    expect(clean.lines).toEqual([
      { line: 1, text: 'red' },
      { line: 2, text: '100%' },
    ]);
    const raw = await s.read(id, { raw: true });
    expect(raw).toMatchObject({
      raw: true,
      text: '\u001b[31mred\u001b[0m\n10%\r50%\r100%\n',
      cutLines: 0,
      hasMore: false,
    });
    expect(raw).toMatchObject({ rawLines: 2, returned: 2 });
    // The newest raw line is the last one printed, its newline kept; nothing after a final newline counts as a line.
    const rawTail = await s.read(id, { raw: true, tail: true, limit: 1 });
    expect(rawTail).toMatchObject({ text: '10%\r50%\r100%\n', offset: 1, returned: 1 });
    const rawHead = await s.read(id, { raw: true, limit: 1 });
    expect(rawHead).toMatchObject({ text: '\u001b[31mred\u001b[0m', hasMore: true });
    expect(`${rawHead.text}\n${rawTail.text}`).toBe(raw.text);
  });

  it('searches with a regular expression, case-insensitively when asked', async () => {
    const s = new Session(ctx.host, 'ses_grep');
    const { id } = await s.spawn({
      command: 'printf',
      args: ['alpha\\nBeta\\nbeta\\ngamma beta\\nBETA!\\n'],
      description: 'words',
    });
    await s.untilStatus(id, ['exited']);
    const exact = await s.read(id, { pattern: 'beta' });
    expect(exact.lines).toEqual([
      { line: 3, text: 'beta' },
      { line: 4, text: 'gamma beta' },
    ]);
    expect(exact).toMatchObject({ pattern: 'beta', ignoreCase: false, matches: 2, limitReached: false });
    const loose = await s.read(id, { pattern: '^beta', ignoreCase: true });
    expect(loose.lines.map((l) => l.line)).toEqual([2, 3, 5]);
    const limited = await s.read(id, { pattern: 'beta', ignoreCase: true, limit: 2 });
    expect(limited).toMatchObject({ matches: 2, limitReached: true, offset: 0, hasMore: true, nextOffset: 2 });
    expect(limited.lines.map((l) => l.line)).toEqual([2, 3]);
    // offset pages through the matches.
    const second = await s.read(id, { pattern: 'beta', ignoreCase: true, limit: 2, offset: limited.nextOffset });
    expect(second).toMatchObject({ matches: 2, offset: 2, hasMore: true, nextOffset: 4 });
    expect(second.lines.map((l) => l.line)).toEqual([4, 5]);
    const past = await s.read(id, { pattern: 'beta', ignoreCase: true, limit: 2, offset: 4 });
    expect(past).toMatchObject({ matches: 0, lines: [], limitReached: false, hasMore: false, nextOffset: null });
    expect(fails(await s.call('pty_read', { id, pattern: 'beta', tail: true })).message).toMatch(
      /cannot be combined with tail or raw/,
    );
  });

  it('explains an invalid pattern with grep’s own complaint', async () => {
    const s = new Session(ctx.host, 'ses_badregex');
    const { id } = await s.spawn({ command: 'echo', args: ['text'], description: 'something to search' });
    await s.untilStatus(id, ['exited']);
    const failed = fails(await s.call('pty_read', { id, pattern: 'a(' }));
    expect(failed.code).toBe('invalid_input');
    expect(failed.message).toMatch(/grep rejected the pattern: .*Unmatched \( or \\\(/);
  });

  it('says how much of its head a line longer than the buffer lost, in a page, a search and the unfinished line', async () => {
    const s = new Session(ctx.host, 'ses_giant');
    const printed = 3 * MAX_BUFFER_CHARS;
    // One line three times the buffer, 'HEAD' at its start and a marker at its end; then the same again, unfinished.
    const { id } = await s.spawn({
      command: 'python3',
      args: [
        '-c',
        `import sys; n=${printed}; sys.stdout.write('HEAD'+'m'*(n-8)+'TAIL\\n'+'HEAD'+'u'*(n-8)+'TAIL'); sys.stdout.flush(); sys.stdin.read()`,
      ],
      description: 'a giant line',
      wait: { pattern: 'uTAIL$', timeoutMs: 60_000 },
    });
    const page = await s.read(id, { offset: 0 });
    expect(page.lines.map((l) => l.line)).toEqual([2]);
    const [open] = page.lines;
    expect(open?.text.startsWith('HEAD')).toBe(false);
    expect((open?.headDropped ?? 0) + (open?.cutFrom ?? 0)).toBe(printed);
    const found = await s.read(id, { pattern: 'uTAIL' });
    expect(found.lines).toEqual([open]);
    // The raw text keeps its own newest MAX_RAW_CHARS: its first raw line is the end of line 2, and it says so.
    const raw = await s.read(id, { raw: true, limit: 1 });
    expect(raw).toMatchObject({ droppedChars: 2 * printed + 1 - MAX_RAW_CHARS, firstLineCut: true });
    expect(raw.text.startsWith('HEAD')).toBe(false);
    await s.write(id, '\u0004');
    await s.untilStatus(id, ['exited']);
    const [afterExit] = (await s.read(id, { offset: 0 })).lines;
    expect(afterExit).toEqual(open);
  });

  it('stops a catastrophic pattern with pattern_too_expensive', async () => {
    const s = new Session(ctx.host, 'ses_redos');
    // 40,009 is prime: ^(aa+)\1+$ backtracks through every split and never matches.
    const { id } = await s.spawn({
      command: 'python3',
      args: ['-c', "print('a' * 40009)"],
      description: 'one long line',
    });
    await s.untilStatus(id, ['exited']);
    const read = await s.read(id);
    expect(read.lines).toEqual([{ line: 1, text: 'a'.repeat(MAX_LINE_CHARS), cutFrom: 40_009 }]);
    const failed = fails(await s.call('pty_read', { id, pattern: '^(aa+)\\1+$' }));
    expect(failed.code).toBe('pattern_too_expensive');
    expect(failed.message).toContain(`of grep's CPU time (GREP_CPU_BUDGET_MS = ${GREP_CPU_BUDGET_MS},`);
    // The PTY is still readable and searchable afterwards.
    expect((await s.read(id, { pattern: '^a+$' })).matches).toBe(1);
  });

  it('runs more concurrent searches than grep workers, all succeeding', async () => {
    const s = new Session(ctx.host, 'ses_many');
    const { id } = await s.spawn({ command: 'seq', args: ['1', '20000'], description: 'numbers' });
    await s.untilStatus(id, ['exited']);
    const patterns = Array.from({ length: MAX_GREP_WORKERS + 1 }, (_, i) => `^${i + 1}999$`);
    const results = await Promise.all(patterns.map((pattern) => s.call('pty_read', { id, pattern })));
    expect(results.map((r) => ok(r, MatchesRead).lines)).toEqual(
      patterns.map((_, i) => [{ line: (i + 1) * 1000 + 999, text: String((i + 1) * 1000 + 999) }]),
    );
  });

  it('refuses a line longer than the canonical-mode limit to cat, and takes it for a raw-mode program', async () => {
    const s = new Session(ctx.host, 'ses_long');
    const long = 'x'.repeat(5000);
    const cat = await s.spawn({ command: 'cat', description: 'line mode' });
    const refused = fails(await s.call('pty_write', { id: cat.id, data: long }));
    expect(refused.code).toBe('limit');
    expect(refused.message).toContain(`an input line of 5000 bytes`);
    expect(refused.message).toContain(`the kernel silently cuts a line at ${CANONICAL_LINE_MAX_BYTES} bytes`);
    expect(refused.message).toContain('Nothing was written');
    // Refused before the user is asked, and before the resize asked for in the same call.
    const asks = ctx.host.permissionLog.length;
    const sizeBefore = (await s.read(cat.id, { screen: true })).screen?.size;
    const withResize = fails(await s.call('pty_write', { id: cat.id, data: long, resize: { rows: 12, cols: 34 } }));
    expect(withResize.code).toBe('limit');
    expect(ctx.host.permissionLog.length).toBe(asks);
    expect((await s.read(cat.id, { screen: true })).screen?.size).toEqual(sizeBefore);
    // A line killed with ^U counts no more: 3000 bytes killed, then 2000, is a line of 2000.
    const edited = await s.spawn({ command: 'cat', description: 'line editing' });
    await s.write(edited.id, `${'k'.repeat(3000)}\\x15`);
    await s.write(edited.id, `${'z'.repeat(2000)}\\n`);
    expect(await s.untilOutput(edited.id, 'z'.repeat(2000))).not.toContain('k');
    // Lines within the limit are fine.
    await s.write(cat.id, `${'y'.repeat(CANONICAL_LINE_MAX_BYTES)}\\n`);
    // Shown cut at MAX_LINE_CHARS, with the full length: all 4095 bytes arrived, nothing of the refused write.
    const [line] = await waitFor(async () => {
      const read = await s.read(cat.id);
      return read.totalLines === 1 ? read.lines : undefined;
    }, 'the 4095-byte line');
    expect(line).toEqual({ line: 1, text: 'y'.repeat(MAX_LINE_CHARS), cutFrom: CANONICAL_LINE_MAX_BYTES });

    const raw = await s.spawn({
      command: 'python3',
      args: [
        '-c',
        "import tty,sys; tty.setraw(0); print('ready', flush=True); print(len(sys.stdin.buffer.read(5000)), flush=True)",
      ],
      description: 'raw mode',
    });
    await s.untilOutput(raw.id, 'ready');
    expect(await s.write(raw.id, long)).toMatchObject({ bytesWritten: 5000 });
    await s.untilOutput(raw.id, /^5000$/m);
    await waitFor(
      async () => (await s.list()).find((p) => p.id === raw.id)?.status === 'exited',
      'the raw-mode program to exit',
    );
  });
});
