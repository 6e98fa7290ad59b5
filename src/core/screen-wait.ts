import { catchError, defer, EMPTY, filter, from, type Observable, startWith } from 'rxjs';
import { MAX_SCREEN_LOOKS_WAITING } from '../limits.js';
import type { LinearPattern } from '../patterns/linear-pattern.js';
import { runInTurn } from '../operators/run-in-turn.js';
import { PrintedRuns } from '../screen/printed-runs.js';
import { type ScreenRowMatch, ScreenRowScanner } from '../screen/screen-row-scanner.js';
import type { CursorMark } from './cursor-marks.js';
import type { PtySession } from './pty-session.js';
import type { LazyScreen } from '../screen/lazy-screen.js';

/** The rows the screen shows now, read in turn with other reads; undefined once the PTY is gone (the read fails). */
export function screenRowsNow(screen: LazyScreen): Promise<readonly string[] | undefined> {
  return screen.snapshot().then(
    (snapshot) => snapshot.rows,
    () => undefined,
  );
}

/**
 * A wait's matches on the screen: while a full-screen program is on the alternate screen, whose drawing the lines
 * leave out, the rows that changed since the wait began are tested after each chunk of output, on the screen as that
 * chunk left it, one screen read at a time (runInTurn, so a row drawn and changed again by the next chunk is seen even
 * when the emulator is behind). Nothing runs for a program that never enters the alternate screen. `fromCursor`
 * given: the wait counts output from before the call (a cursor's, or a spawn's from its start): the screen is looked at once at
 * the start, compared with the rows the cursor was handed out on (CursorMarks), or, without them, every row counts.
 */
export function screenMatches(
  session: PtySession,
  pattern: LinearPattern,
  fromCursor: CursorMark | undefined,
): Observable<ScreenRowMatch> {
  return defer(() => {
    const { screen } = session;
    // Read as the wait begins, in the same run as the call's act: its answer arrives in a later turn of the loop
    // (a pipe's read), and reads are served in order, so this is the screen before it. What shows now is no answer.
    const baseline: Promise<readonly string[] | undefined> =
      fromCursor !== undefined
        ? (fromCursor.screenRows ?? Promise.resolve(undefined))
        : screen.alternateScreenActive()
          ? screenRowsNow(screen)
          : Promise.resolve(undefined);
    let scanner: ScreenRowScanner | undefined;
    /** Where the output the last look saw ends: what comes after it was printed since. */
    let lookedTo = fromCursor?.rawOffset ?? session.buffer.totalRawChars;
    const look = async (end: number): Promise<ScreenRowMatch | undefined> => {
      scanner ??= new ScreenRowScanner(pattern, await baseline);
      const snapshot = await screen.snapshotTo(end);
      const since = session.buffer.rawSince(Math.min(lookedTo, end));
      lookedTo = Math.max(lookedTo, end);
      const printed = new PrintedRuns(since.text.slice(0, Math.max(0, end - since.from)), snapshot.size.cols);
      return scanner.scan(snapshot.rows, printed);
    };
    // Where each chunk ended: the screen is read as it left it. A cursor's wait looks once at the start.
    const startsAt = fromCursor !== undefined && screen.alternateScreenActive() ? [session.buffer.totalRawChars] : [];
    return session.drawnTo$.pipe(
      startWith(...startsAt),
      runInTurn((end) => from(look(end)), MAX_SCREEN_LOOKS_WAITING),
      filter((found): found is ScreenRowMatch => found !== undefined),
      // A read fails only once the PTY is removed: its stopping or its end ends the wait.
      catchError(() => EMPTY),
    );
  });
}
