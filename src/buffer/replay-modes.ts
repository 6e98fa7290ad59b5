import type { ParserStart } from './escape-parser.js';
import { LineRenderer, NO_SINK } from './line-renderer.js';

/** What reading `text` from `start` does to the screen and modes a restart gives back (terminal-modes.ts). */
export interface ModesReplay {
  /** The screen and modes where `text` ends. */
  readonly end: ParserStart;
  /** A cursor restore in `text` brought back a cursor saved before it: where that cursor goes is not known here. */
  readonly restoredEarlierSave: boolean;
}

export function replayModes(text: string, start: ParserStart): ModesReplay {
  // Lines of one character: only the state it reaches matters.
  const replay = new LineRenderer({ start, maxLineChars: 1 });
  replay.render(text, NO_SINK);
  return {
    end: { alternate: replay.alternateScreen, modes: replay.modes },
    restoredEarlierSave: replay.restoredEarlierSave,
  };
}
