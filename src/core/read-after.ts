import { PtyError } from '../errors.js';
import { DEFAULT_READ_LIMIT } from '../limits.js';
import type { ReadInput } from '../protocol/tool-inputs.js';
import type { PtySession } from './pty-session.js';
import { cursorLine, linesAfter } from './read-cursor.js';
import { compileWait, refuseIgnoreCaseAlone, startWait } from './wait-call.js';

/** Reads that page by cursor or wait for new output; the others are readOutput's. */
export const readsAfter = (input: ReadInput): boolean => input.cursor !== undefined || input.wait !== undefined;

function checkCombination(input: ReadInput): void {
  if (input.screen === true) {
    const given = [input.cursor !== undefined ? 'cursor' : '', input.wait !== undefined ? 'wait' : '']
      .filter((key) => key !== '')
      .join(' and ');
    throw new PtyError(
      'invalid_input',
      `pty_read: screen: true returns the visible screen as it is now, not lines; it cannot be combined with ${given}. Read with ${given} first (while a full-screen program is on the alternate screen, its result carries the screen by itself), then screen: true in another call. Nothing was read.`,
    );
  }
  const clashing = (['offset', 'tail', 'pattern', 'ignoreCase', 'raw'] as const).filter(
    (key) => input[key] !== undefined,
  );
  if (clashing.length > 0) {
    const given = input.cursor !== undefined ? 'cursor' : 'wait';
    throw new PtyError(
      'invalid_input',
      `pty_read: ${given} reads the lines as they arrive; it cannot be combined with ${clashing.join(', ')}. Nothing was read.`,
    );
  }
}

/**
 * pty_read with `cursor` (only what came after an earlier result) and/or `wait` (first wait for new output; the
 * result then carries the lines after the cursor, or without one the lines that arrived during the call).
 * `run` holds the wait as an in-flight operation, so owner deletion and plugin close settle it.
 */
export async function readAfter(
  session: PtySession,
  input: ReadInput,
  signal: AbortSignal | undefined,
  run: <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>,
) {
  checkCombination(input);
  refuseIgnoreCaseAlone('pty_read', input.wait);
  const wait = compileWait('pty_read', input.wait);
  const { buffer } = session;
  // A cursor past the end is refused before waiting, not after.
  const from = input.cursor === undefined ? undefined : cursorLine(input.cursor, buffer);
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  const base = () => ({ id: session.info.id, totalLines: buffer.totalLines, firstLine: buffer.firstLine });
  if (wait === undefined) {
    return {
      ...base(),
      status: session.status,
      exitCode: session.exitCode,
      ...linesAfter(buffer, from ?? 1, limit, session.cursors),
    };
  }
  // From a cursor, the wait counts what came since it (a server's "listening" line printed before this call), as a
  // wait begun when the cursor was handed out would have; without one, what comes during the call.
  const mark =
    from === undefined || input.cursor === undefined ? {} : { mark: session.cursors.markAt(input.cursor, from) };
  const waited = await run(
    (ours) =>
      startWait(session, wait, signal === undefined ? ours : AbortSignal.any([ours, signal]), {
        maxLines: limit,
        ...mark,
      }).done,
  );
  // screen: false holds for a wait too: lines only, not the screen a full-screen program shows when it ends.
  const { screen, screenNote, ...report } = waited;
  const shown = input.screen === false || screen === undefined ? report : { ...report, screen, screenNote };
  if (from === undefined) return { ...base(), ...shown };
  // The lines after the cursor replace the wait's own: what the wait said of its lines (how many it left out, where
  // they are, how many a flood dropped) would describe lines that are not in the result.
  const { omittedLines: _omitted, outputCursor: _output, droppedLines: _dropped, ...afterCursor } = shown;
  return { ...base(), ...afterCursor, ...linesAfter(buffer, from, limit, session.cursors) };
}
