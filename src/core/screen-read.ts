import { PtyError } from '../errors.js';
import type { ScreenSnapshot } from '../screen/lazy-screen.js';
import type { ReadInput } from '../protocol/tool-inputs.js';
import type { ReadResult, ScreenRead, ScreenView } from '../protocol/tool-results.js';
import type { PtySession } from './pty-session.js';
import { readOutput, type Search } from './read-output.js';

const INCOMPLETE_NOTE =
  'output was dropped before the screen was read and what is kept does not redraw the whole screen as the program left it: parts drawn earlier may be missing or misplaced (many programs redraw on C-l).';
export const ALTERNATE_NOTE =
  'a full-screen program is on the alternate screen: `screen` shows what it displays now; what it draws there is not in the lines (a terminal keeps none of it in its scrollback), which go on when it leaves. Read screen: true for the screen alone.';

/** The screen as pty_read returns it. */
function screenView(snapshot: ScreenSnapshot): ScreenView {
  return snapshot.incomplete ? { ...snapshot, note: INCOMPLETE_NOTE } : snapshot;
}

/** The screen for a result that includes it by itself (a plain read, a wait): only while the alternate screen is active. */
export async function screenIfFullScreen(session: PtySession): Promise<ScreenView | undefined> {
  if (!session.screen.alternateScreenActive()) return undefined;
  return screenView(await session.screen.snapshot());
}

/**
 * pty_read with the screen: `screen: true` gives the screen alone, `screen: false` the lines alone, and by default
 * the lines come with the screen while a full-screen program is on the alternate screen.
 */
export async function readWithScreen(session: PtySession, input: ReadInput, search: Search): Promise<ReadResult> {
  if (input.screen === true) {
    const other = (['offset', 'limit', 'tail', 'pattern', 'ignoreCase', 'raw'] as const).filter(
      (k) => input[k] !== undefined,
    );
    if (other.length > 0) {
      throw new PtyError(
        'invalid_input',
        `pty_read: screen: true returns the whole visible screen; it takes no ${other.join(', ')}. Read lines in another call.`,
      );
    }
    const result: ScreenRead = {
      id: session.info.id,
      status: session.status,
      exitCode: session.exitCode,
      totalLines: session.buffer.totalLines,
      screen: screenView(await session.screen.snapshot()),
    };
    return result;
  }
  const result = await readOutput(session, input, search);
  if (input.screen === false) return result;
  const screen = await screenIfFullScreen(session);
  return screen === undefined ? result : { ...result, screen, screenNote: ALTERNATE_NOTE };
}
