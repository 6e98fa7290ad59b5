import { PtyError } from '../errors.js';
import { DEFAULT_READ_LIMIT } from '../limits.js';
import type { GrepMatch, GrepRequest } from '../search/grep-pool.js';
import type { ReadInput } from '../tools/schemas.js';
import type { PtySession } from './pty-session.js';
import { viewLines } from './read-view.js';

export type Search = (request: Omit<GrepRequest, 'signal'>) => Promise<GrepMatch[]>;

function checkCombination(input: ReadInput): void {
  if (input.pattern !== undefined && (input.offset !== undefined || input.tail || input.raw)) {
    throw new PtyError('invalid_input', 'pty_read: pattern searches all retained lines; it cannot be combined with offset, tail or raw.');
  }
  if (input.pattern === undefined && input.ignoreCase !== undefined) {
    throw new PtyError('invalid_input', 'pty_read: ignoreCase only applies with pattern.');
  }
  if (input.tail && input.offset !== undefined) {
    throw new PtyError('invalid_input', 'pty_read: give either offset (page from the start) or tail (the newest lines), not both.');
  }
}

/** A window of `total` items: from `offset`, or the last `limit` when `tail`. */
function window(total: number, offset: number | undefined, limit: number, tail: boolean | undefined) {
  const start = tail ? Math.max(0, total - limit) : Math.min(offset ?? 0, total);
  const end = Math.min(start + limit, total);
  return { start, end, hasMore: end < total, nextOffset: end < total ? end : null };
}

/**
 * pty_read's answer: a page of rendered lines (O(page)), the newest lines (`tail`), matches of a pattern
 * (through the bounded grep workers, line numbers mapped back to absolute ones), or the raw terminal text.
 */
export async function readOutput(session: PtySession, input: ReadInput, search: Search) {
  checkCombination(input);
  const { buffer } = session;
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  const base = {
    id: session.info.id,
    status: session.status,
    exitCode: session.exitCode,
    totalLines: buffer.totalLines,
    firstLine: buffer.firstLine,
    droppedLines: buffer.droppedLines,
    retainedLines: buffer.retainedLines,
  };
  if (input.pattern !== undefined) {
    const { text, firstLine } = buffer.searchText();
    const ignoreCase = input.ignoreCase ?? false;
    const matches = await search({ text, pattern: input.pattern, ignoreCase, maxMatches: limit });
    const lines = viewLines(matches.map((m) => ({ lineNumber: firstLine + m.lineNumber - 1, text: m.text })));
    return { ...base, pattern: input.pattern, ignoreCase, matches: lines.length, limitReached: lines.length >= limit, lines };
  }
  if (input.raw) {
    // The raw text as the terminal got it (escape sequences and \r kept), paged by its own lines, each cut like any line.
    const rawLines = buffer.rawText().split('\n');
    const w = window(rawLines.length, input.offset, limit, input.tail);
    const lines = viewLines(rawLines.slice(w.start, w.end).map((text, i) => ({ lineNumber: w.start + i + 1, text })));
    const text = lines.map((l) => l.text).join('\n');
    const cutLines = lines.filter((l) => l.cutFrom !== undefined).length;
    return { ...base, raw: true, rawLines: rawLines.length, offset: w.start, returned: lines.length, text, cutLines, hasMore: w.hasMore, nextOffset: w.nextOffset };
  }
  const w = window(buffer.retainedLines, input.offset, limit, input.tail);
  const page = buffer.page(w.start, w.end - w.start);
  return { ...base, offset: w.start, returned: page.length, lines: viewLines(page), hasMore: w.hasMore, nextOffset: w.nextOffset };
}
