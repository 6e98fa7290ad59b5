import { catchError, defer, EMPTY, filter, from, type Observable, startWith } from 'rxjs';
import type { LinearPattern } from '../patterns/linear-pattern.js';
import { runLatest } from '../operators/run-latest.js';
import { type ScreenRowMatch, ScreenRowScanner } from '../screen/screen-row-scanner.js';
import type { PtySession } from './pty-session.js';

/**
 * A wait's matches on the screen: while a full-screen program is on the alternate screen, whose drawing the lines
 * leave out, the rows that changed since the wait began are tested after each chunk of output, one screen read at a
 * time (runLatest). Nothing runs for a program that never enters the alternate screen. `fromCursor`: the wait counts
 * output from before the call (a cursor's), which the screen cannot tell apart, so every row counts and the screen is
 * looked at once at the start.
 */
export function screenMatches(
  session: PtySession,
  pattern: LinearPattern,
  fromCursor: boolean,
): Observable<ScreenRowMatch> {
  return defer(() => {
    const { screen } = session;
    // Read as the wait begins, in the same run as the call's act: its answer arrives in a later turn of the loop
    // (a pipe's read), and reads are served in order, so this is the screen before it. What shows now is no answer.
    const baseline: Promise<readonly string[] | undefined> =
      screen.alternateScreenActive() && !fromCursor
        ? screen.snapshot().then(
            (snapshot) => snapshot.rows,
            () => undefined,
          )
        : Promise.resolve(undefined);
    let scanner: ScreenRowScanner | undefined;
    const look = async (): Promise<ScreenRowMatch | undefined> => {
      scanner ??= new ScreenRowScanner(pattern, await baseline);
      return scanner.scan((await screen.snapshot()).rows);
    };
    return session.activity$.pipe(
      filter((activity) => activity.kind === 'output'),
      startWith(...(fromCursor ? [undefined] : [])),
      filter(() => screen.alternateScreenActive()),
      runLatest(() => from(look())),
      filter((found): found is ScreenRowMatch => found !== undefined),
      // A read fails only once the PTY is removed: its stopping or its end ends the wait.
      catchError(() => EMPTY),
    );
  });
}
