import { match } from 'ts-pattern';
import { PtyError } from '../errors.js';
import { SCREEN_FEED_CHUNK_CHARS, SCREEN_IDLE_CATCHUP_MS, SCREEN_SKIP_FROM_CHARS } from '../limits.js';
import type { KeyModes } from '../keys/encode-key.js';
import { replayModes } from '../buffer/replay-modes.js';
import { modesPrelude, restorable } from '../buffer/terminal-modes.js';
import { ENTER_ALTERNATE_SCREEN, keptStart, lastAltToggle, restartPoint } from './reset-points.js';
import type { ScreenSource } from './screen-source.js';
import { isHighSurrogate } from '../text/surrogates.js';
import { floodTail } from './flood-tail.js';
import { skipPoint } from './skip-ahead.js';
import {
  createTerminal,
  cursorHidden,
  plainDefaults,
  retireTerminal,
  type TerminalSize,
  type XtermTerminal,
} from './xterm.js';

/** What a person would see on the terminal now. */
export interface ScreenSnapshot {
  /** One string per row, top to bottom, trailing blanks trimmed; a wide character takes one string position. */
  readonly rows: string[];
  readonly size: TerminalSize;
  /** 0-based indexes into `rows` and into the row's columns. */
  readonly cursor: { readonly row: number; readonly col: number; readonly visible: boolean };
  readonly alternateScreen: boolean;
  /** The window title the program set (OSC 0/2), '' when none. */
  readonly title: string;
  /**
   * Output the screen depends on was dropped before the emulator saw it: parts drawn earlier may be missing, or drawn
   * where state the restart could not give back (tab stops set at a column, a saved cursor) would not have put them.
   */
  readonly incomplete: boolean;
}

/**
 * A PTY's screen, emulated lazily: nothing runs in the ingest path. The emulator (@xterm/headless) is made on first
 * need and remembers the absolute raw offset it was fed to; it catches up from the PTY's kept raw output when the
 * screen or the key modes are asked for, when the terminal is resized, and once output has gone quiet. When it fell
 * behind by more than is kept, a fresh one starts at the newest point that redraws the whole screen. Feeds are
 * serialized and each write's callback awaited (xterm.js drops input written faster than it parses).
 */
export class LazyScreen {
  private terminal: XtermTerminal | undefined;
  private title = '';
  /**
   * The emulator's title listener: it closes over this screen, and so over the PTY's whole buffer. Removed when the
   * emulator is retired as a specimen, which outlives the PTY (a heap snapshot found a removed PTY's megabyte kept
   * that way, docs/perf-journal.md, thirteenth session).
   */
  private titleListener: { dispose(): void } | undefined;
  private fedTo = 0;
  private incomplete = false;
  /** Restarted on the alternate screen: the normal screen beneath it was never seen, and shows again when it leaves. */
  private normalScreenLost = false;
  /**
   * Restarted inside a sequence that had not ended (a long image or clipboard copy cut by the loss): the emulator was
   * fed none of it, and would take the rest of it for text, so the next catch-up restarts again from the same point.
   */
  private restartAgainFrom: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private lastOutputAt = 0;
  private disposed = false;
  /** Backlogs entered late (for tests and the curious). */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by the skip-ahead property test through a cast
  private skips = 0;
  /** Of those, entered where a look from the end found (skip-ahead.ts). */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by the skip-ahead property test through a cast
  private tailSkips = 0;

  constructor(
    private readonly source: ScreenSource,
    private size: TerminalSize,
    /** Backlogs this long may be entered late (see skipScrolledOff); tests lower it. */
    private readonly skipFromChars = SCREEN_SKIP_FROM_CHARS,
  ) {}

  /** Whether the program is on the alternate screen (vim, less, top), as the buffer saw it: no emulator needed. */
  alternateScreenActive(): boolean {
    return this.source.alternateScreen;
  }

  /** Whether an emulator exists (made on first need). */
  get started(): boolean {
    return this.terminal !== undefined;
  }

  snapshot(): Promise<ScreenSnapshot> {
    return this.serialized(async () => read(await this.caughtUp(), this.title, this.incomplete));
  }

  /**
   * The screen as it was once the output up to absolute raw offset `end` was drawn, where the emulator can stop
   * there: it goes on from where it stands, fed no further (a wait looks at the screen after each chunk, and reads
   * that queue up behind a busy emulator must still see each chunk's screen). Fallen behind what is kept, or past
   * `end` already, it catches up and shows the screen now.
   */
  snapshotTo(end: number): Promise<ScreenSnapshot> {
    return this.serialized(async () => read(await this.caughtUp(end), this.title, this.incomplete));
  }

  keyModes(): Promise<KeyModes> {
    return this.serialized(async () => ({
      applicationCursorKeys: (await this.caughtUp()).modes.applicationCursorKeysMode,
    }));
  }

  /** Output so far was drawn at the old size: it is fed first, then the emulator takes the new one. */
  resize(size: TerminalSize): Promise<void> {
    return this.serialized(async () => {
      if (this.terminal !== undefined) (await this.caughtUp()).resize(size.cols, size.rows);
      this.size = size;
    });
  }

  /** Called on output: once it has been quiet for a while, an emulator in use catches up by itself. */
  noteOutput(): void {
    if (this.terminal === undefined || this.disposed) return;
    this.lastOutputAt = Date.now();
    this.idleTimer ??= this.armIdle(SCREEN_IDLE_CATCHUP_MS);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.titleListener?.dispose();
    this.titleListener = undefined;
    if (this.terminal !== undefined) retireTerminal(this.terminal);
    this.terminal = undefined;
  }

  private armIdle(delay: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.idleTimer = undefined;
      const quietFor = Date.now() - this.lastOutputAt;
      if (quietFor < SCREEN_IDLE_CATCHUP_MS) this.idleTimer = this.armIdle(SCREEN_IDLE_CATCHUP_MS - quietFor);
      else void this.serialized(() => this.caughtUp()).catch(() => undefined);
    }, delay);
    // Never what keeps the host alive.
    timer.unref();
    return timer;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.disposed) throw screenGone();
      return work();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Feeds in turns of the event loop, so the PTY can be removed meanwhile: the rest is then not fed, and the read
   * fails as one begun after the removal does (a disposed emulator must not be touched: xterm then leaks what it
   * registers and says so on the host's console, as seen under Bun in the memory bench).
   */
  private async feedLive(terminal: XtermTerminal, text: string): Promise<void> {
    await feed(terminal, text, () => this.disposed);
    if (this.disposed) throw screenGone();
  }

  /** Feeds the emulator (made now if need be) everything up to the current end of the output, or up to `upTo`. */
  private async caughtUp(upTo?: number): Promise<XtermTerminal> {
    const going = this.terminal;
    if (upTo !== undefined && going !== undefined && this.restartAgainFrom === undefined && upTo > this.fedTo) {
      const kept = this.source.rawSince(this.fedTo);
      if (kept.from === this.fedTo && upTo < kept.from + kept.text.length) {
        const text = kept.text.slice(0, upTo - kept.from);
        this.noteRedraws(text, going.buffer.active.type === 'alternate');
        await this.feedLive(going, text);
        this.fedTo = upTo;
        return going;
      }
    }
    const flood = this.plainFloodTail();
    if (flood !== undefined) {
      await this.feedLive(flood.terminal, flood.text);
      this.fedTo = flood.end;
      return flood.terminal;
    }
    const kept = this.source.rawSince(this.restartAgainFrom ?? this.fedTo);
    const from = kept.from;
    let text = kept.text;
    const end = from + text.length;
    let terminal = this.terminal;
    if (terminal === undefined || from > this.fedTo || this.restartAgainFrom !== undefined) {
      terminal?.dispose();
      terminal = this.fresh();
      // Output was lost: start where the screen was last redrawn whole. (From the very start, nothing was lost.)
      if (from > 0) {
        text = this.restarted(from, text);
      } else {
        this.incomplete = false;
        this.normalScreenLost = false;
      }
    } else {
      this.noteRedraws(text, terminal.buffer.active.type === 'alternate');
    }
    text = this.skipScrolledOff(terminal, text);
    await this.feedLive(terminal, text);
    this.fedTo = end;
    return terminal;
  }

  /**
   * What a fresh emulator is fed after a loss, given the kept `text` from absolute offset `from`: from where the screen
   * was last redrawn whole (reset-points.ts), after the modes set before that point (terminal-modes.ts), the dropped
   * output's included. Says how whole that makes the screen.
   */
  private restarted(from: number, kept: string): string {
    const start = keptStart(this.source.rawChunkAt(from), from);
    if (start.open) this.restartAgainFrom = from;
    const text = kept.slice(start.skip);
    const point = restartPoint(text, start.alternate ?? this.source.alternateScreen, start.alternate);
    const fed = text.slice(point.index);
    const atPoint = this.source.modesAt(from + start.skip + point.index);
    const enter = point.enterAlternate ? ENTER_ALTERNATE_SCREEN : undefined;
    // The screen the rows after the point are drawn on, if not one entered afresh there.
    const shown = point.enterAlternate ? 'alternate' : point.kind === 'alternate' ? undefined : 'normal';
    // A cursor saved before the point and restored after it: where the restore puts it is not known.
    const lostCursor = atPoint !== undefined && replayModes(fed, atPoint).restoredEarlierSave;
    this.incomplete = point.incomplete || atPoint === undefined || !restorable(atPoint.modes, shown) || lostCursor;
    this.normalScreenLost = point.kind === 'alternate' || point.enterAlternate || this.incomplete;
    return (atPoint === undefined ? (enter ?? '') : modesPrelude(atPoint.modes, enter)) + fed;
  }

  /** The flood way (flood-tail.ts): the emulator goes on, or a fresh one starts, with the tail to feed it. */
  private plainFloodTail(): { terminal: XtermTerminal; text: string; end: number } | undefined {
    const tail = floodTail(this.source, {
      terminal: this.terminal,
      fedTo: this.fedTo,
      size: this.size,
      skipFromChars: this.skipFromChars,
    });
    if (tail === undefined) return undefined;
    this.skips++;
    this.tailSkips++;
    return match(tail)
      .with({ kind: 'go-on' }, ({ terminal, text, end }) => ({ terminal, text, end }))
      .with({ kind: 'fresh' }, ({ text, end, incomplete }) => {
        this.terminal?.dispose();
        this.incomplete = incomplete;
        this.normalScreenLost = incomplete;
        return { terminal: this.fresh(), text, end };
      })
      .exhaustive();
  }

  /**
   * A long backlog of plain lines is entered where what precedes it has scrolled off the screen: the screen is the
   * same, and a flood read by screen costs a character loop, not the emulator's parse, for all but its last screens.
   */
  private skipScrolledOff(terminal: XtermTerminal, text: string): string {
    if (text.length < this.skipFromChars || !plainDefaults(terminal)) return text;
    const buffer = terminal.buffer.active;
    const point = skipPoint(
      text,
      { row: buffer.cursorY, col: buffer.cursorX },
      { rows: terminal.rows, cols: terminal.cols },
    );
    if (point === undefined) return text;
    this.skips++;
    if (point.fromTail) this.tailSkips++;
    return `\x1b[${point.row + 1};${point.col + 1}H${text.slice(point.index)}`;
  }

  /** New output after a restart may redraw the whole screen (whole again) or go back to the lost normal screen. */
  private noteRedraws(text: string, onAlternate: boolean): void {
    const point = restartPoint(text, onAlternate, onAlternate);
    match(point.kind)
      .with('none', () => undefined)
      .with('alternate', () => {
        // Whole now (if the cursor was placed after the switch); an incomplete normal screen shows again when the
        // program leaves.
        this.normalScreenLost ||= this.incomplete;
        this.incomplete &&= point.incomplete;
      })
      .with('clear', () => {
        // Whole now, unless the cursor's place is unknown (a bare clear after an incomplete restart).
        this.incomplete &&= point.incomplete;
        // A clear on the normal screen (after leaving, or while on it) makes that one whole too.
        if (!onAlternate || lastAltToggle(text) !== undefined) this.normalScreenLost = false;
      })
      .with('left-alternate', () => (this.incomplete = this.normalScreenLost))
      .exhaustive();
  }

  private fresh(): XtermTerminal {
    const terminal = createTerminal(this.size);
    this.title = '';
    this.restartAgainFrom = undefined;
    this.titleListener = terminal.onTitleChange((title) => (this.title = title));
    this.terminal = terminal;
    return terminal;
  }
}

/** Writes in chunks, each awaited, never cutting a surrogate pair in two; stops before a chunk once `stopped`. */
async function feed(terminal: XtermTerminal, text: string, stopped: () => boolean): Promise<void> {
  for (let at = 0; at < text.length && !stopped(); ) {
    let end = Math.min(at + SCREEN_FEED_CHUNK_CHARS, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;
    const chunk = text.slice(at, end);
    await new Promise<void>((resolve) => terminal.write(chunk, resolve));
    at = end;
  }
}

function screenGone(): PtyError {
  return new PtyError('not_found', 'this PTY was removed; its screen is gone.');
}

/** The visible rows, top to bottom. translateToString(true) trims only cells never written; spaces a program wrote are trimmed too, as tmux does. */
export function screenRows(terminal: XtermTerminal): string[] {
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < terminal.rows; y++)
    rows.push((buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
  return rows;
}

function read(terminal: XtermTerminal, title: string, incomplete: boolean): ScreenSnapshot {
  const buffer = terminal.buffer.active;
  return {
    rows: screenRows(terminal),
    size: { rows: terminal.rows, cols: terminal.cols },
    cursor: { row: buffer.cursorY, col: buffer.cursorX, visible: !cursorHidden(terminal) },
    alternateScreen: buffer.type === 'alternate',
    title,
    incomplete,
  };
}
