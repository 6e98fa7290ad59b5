import { PtyError } from '../errors.js';
import { DEFAULT_READ_LIMIT, MAX_READ_OFFSET } from '../limits.js';
import type { GrepMatch, GrepRequest } from '../search/grep-pool.js';
import type { ReadInput } from '../protocol/tool-inputs.js';
import type { LinesRead, MatchesRead, RawRead } from '../protocol/tool-results.js';
import { membersView } from './envelopes.js';
import type { PtySession } from './pty-session.js';
import { lineAfterPage } from './read-cursor.js';
import { viewLine, viewLines } from './read-view.js';

export type Search = (request: Omit<GrepRequest, 'signal'>) => Promise<GrepMatch[]>;

function checkCombination(input: ReadInput): void {
  if (input.pattern !== undefined && (input.tail || input.raw)) {
    throw new PtyError(
      'invalid_input',
      'pty_read: pattern searches all retained lines; it cannot be combined with tail or raw (offset skips matches).',
    );
  }
  if (input.pattern === undefined && input.ignoreCase !== undefined) {
    throw new PtyError('invalid_input', 'pty_read: ignoreCase only applies with pattern.');
  }
  if (input.tail && input.offset !== undefined) {
    throw new PtyError(
      'invalid_input',
      'pty_read: give either offset (page from the start) or tail (the newest lines), not both.',
    );
  }
}

/**
 * Where the next page starts. A nextOffset is only ever one that `offset` accepts: past MAX_READ_OFFSET there is
 * none, and the note says how to reach the rest instead.
 */
const REACH_THE_REST = {
  lines:
    "go on from this read's cursor (cursor: it gives the lines after it, whatever their offset), read the newest lines with tail: true, or find lines with pattern",
  'raw lines': "go on from this read's cursor (cursor), or read the newest raw lines with tail: true",
  matches: 'narrow the pattern',
} as const;

type Continuation = Pick<LinesRead, 'hasMore' | 'nextOffset' | 'note'>;

function continuation(end: number, hasMore: boolean, what: keyof typeof REACH_THE_REST): Continuation {
  if (!hasMore) return { hasMore, nextOffset: null };
  if (end <= MAX_READ_OFFSET) return { hasMore, nextOffset: end };
  return {
    hasMore,
    nextOffset: null,
    note: `more ${what} follow, but offset is at most ${MAX_READ_OFFSET}: ${REACH_THE_REST[what]}.`,
  };
}

/** A window of `total` items: from `offset`, or the last `limit` when `tail`. */
function window(
  total: number,
  offset: number | undefined,
  limit: number,
  tail: boolean | undefined,
  what: 'lines' | 'raw lines',
) {
  const start = tail ? Math.max(0, total - limit) : Math.min(offset ?? 0, total);
  const end = Math.min(start + limit, total);
  return { start, end, ...continuation(end, end < total, what) };
}

/**
 * pty_read's answer: a page of rendered lines (O(page)), the newest lines (`tail`), matches of a pattern
 * (through the bounded grep workers, line numbers mapped back to absolute ones), or the raw terminal text.
 */
export async function readOutput(
  session: PtySession,
  input: ReadInput,
  search: Search,
): Promise<LinesRead | RawRead | MatchesRead> {
  checkCombination(input);
  const { buffer } = session;
  // Taken with the snapshot the read (or search) works on: output arriving during a search comes after the cursor.
  const cursor = session.cursors.handOut(buffer, buffer.completedLines + 1);
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  const base = {
    id: session.info.id,
    status: session.status,
    exitCode: session.exitCode,
    lingering: membersView(session.lingering),
    totalLines: buffer.totalLines,
    firstLine: buffer.firstLine,
    droppedLines: buffer.droppedLines,
    retainedLines: buffer.retainedLines,
  };
  if (input.pattern !== undefined) {
    const { parts, firstLine } = buffer.searchText();
    const ignoreCase = input.ignoreCase ?? false;
    // offset pages through the matches: grep stops at offset + limit, the first offset are skipped.
    const skip = input.offset ?? 0;
    const found = await search({ text: parts, pattern: input.pattern, ignoreCase, maxMatches: skip + limit });
    const lines = viewLines(
      found.slice(skip).map((m) => {
        const lineNumber = firstLine + m.lineNumber - 1;
        return { lineNumber, text: m.text, headDropped: buffer.headDropped(lineNumber) };
      }),
    );
    // grep stopped at its limit: more matches may follow.
    const limitReached = found.length >= skip + limit;
    const more = continuation(skip + lines.length, limitReached, 'matches');
    // Only the kept lines are searched: a count compared with the program's whole output must know that.
    const searched =
      base.droppedLines > 0
        ? `searched lines ${base.firstLine}–${base.totalLines}, the ones kept; the ${base.droppedLines} before them were dropped from the buffer (it keeps the newest output).`
        : undefined;
    const note = [searched, more.note].filter((n) => n !== undefined).join(' ');
    const result: MatchesRead = {
      ...base,
      pattern: input.pattern,
      ignoreCase,
      offset: skip,
      matches: lines.length,
      limitReached,
      lines,
      ...more,
      ...(note === '' ? {} : { note }),
      cursor,
    };
    return result;
  }
  if (input.raw) {
    // The raw text as the terminal got it (escape sequences and \r kept), paged by its own lines, each cut like any line.
    const rawLines = buffer.rawText().split('\n');
    // A final newline ends the last line: the empty piece after it is no line (tail: true, limit: 3 gave two), and the
    // page that holds the last line keeps that newline, so pages joined by newlines are still the text as written.
    const endsWithNewline = rawLines.length > 1 && rawLines.at(-1) === '';
    if (endsWithNewline) rawLines.pop();
    const w = window(rawLines.length, input.offset, limit, input.tail, 'raw lines');
    const lines = viewLines(rawLines.slice(w.start, w.end).map((text, i) => ({ lineNumber: w.start + i + 1, text })));
    const text = lines.map((l) => l.text).join('\n') + (endsWithNewline && w.end === rawLines.length ? '\n' : '');
    const cutLines = lines.filter((l) => l.cutFrom !== undefined).length;
    const { start, end, ...next } = w;
    const dropped = buffer.rawDropped();
    const result: RawRead = {
      ...base,
      raw: true,
      rawLines: rawLines.length,
      offset: start,
      returned: lines.length,
      text,
      cutLines,
      ...(dropped.chars > 0 ? { droppedChars: dropped.chars } : {}),
      ...(dropped.midLine && start === 0 && lines.length > 0 ? { firstLineCut: true as const } : {}),
      ...next,
      cursor,
    };
    return result;
  }
  const { start, end, ...next } = window(buffer.retainedLines, input.offset, limit, input.tail, 'lines');
  const lines = buffer.pageAs(start, end - start, viewLine);
  const result: LinesRead = {
    ...base,
    offset: start,
    returned: lines.length,
    lines,
    ...next,
    cursor: session.cursors.handOut(buffer, lineAfterPage(buffer.completedLines, lines.at(-1)?.line)),
  };
  return result;
}
