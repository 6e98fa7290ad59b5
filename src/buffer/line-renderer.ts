import {
  DEFAULT_COLS,
  DEFAULT_ROWS,
  MAX_BUFFER_CHARS,
  MAX_ESCAPE_SEQUENCE_CHARS,
  MAX_PENDING_TERMINAL_QUERIES,
  MAX_TERMINAL_DIMENSION,
} from '../limits.js';
import { ColoredRuns } from './colored-runs.js';
import { EscapeParser, type LineEffects, type ParserStart, type TerminalQuery } from './escape-parser.js';
import { FRESH_MODES, type TerminalModes } from './terminal-modes.js';
import { isHighSurrogate as isHigh, isLowSurrogate as isLow } from '../text/surrogates.js';
import { CursorRows } from './cursor-rows.js';
import type { AppendedLine } from './line-cells.js';
import type { RowsAndCols } from './rows-above.js';
import type { ByteRing, RingSpan } from './byte-ring.js';
import type { LineScanner } from './line-scan.js';
import { indexOrEnd, nextMatch, SPECIAL_BUT_LF } from './special-units.js';

/** Where a renderer puts the lines it completes. */
export interface LineSink {
  /**
   * One completed line, as rendered; `headDropped`: the characters a line longer than the bound lost from its head
   * (only its newest are kept), when it did.
   */
  line(text: string, headDropped?: number): void;
  /**
   * `input.slice(from, to)` is whole plain lines, each ended by `\n` and within the line bound, that render
   * exactly as written: one call for a run of them, so a sink can keep them without a string per line.
   * `scanned`: `input` is the chunk loaded in this scanner, byte for character, so its lines can be counted there.
   */
  lines(input: string, from: number, to: number, scanned?: LineScanner): void;
}

export interface LineRendererOptions {
  /** Longest line kept; a longer line keeps its newest tail. */
  readonly maxLineChars?: number;
  /** Past this many chars an unterminated escape sequence is abandoned and what follows is text again. */
  readonly maxSequenceChars?: number;
  /** The screen and modes to start from (fresh by default): to follow them from a known point of the output. */
  readonly start?: ParserStart;
  /** Where the spans given to `putKept` are (see ByteRing). */
  readonly ring?: ByteRing;
  /** The terminal's size (DEFAULT_ROWS × DEFAULT_COLS if not given): how many rows a cursor may go back up over. */
  readonly size?: RowsAndCols;
}

const BS = 0x08;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
const REPLACEMENT = '\uFFFD';

/** A sink that keeps nothing: before the first chunk, and for a renderer run only for the state it reaches. */
export const NO_SINK: LineSink = { line: () => undefined, lines: () => undefined };

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Turns a PTY's decoded output stream into the lines a terminal would show, one chunk at a time.
 *
 * Escape sequences (CSI, OSC, DCS/SOS/PM/APC, two-byte and charset escapes, their 8-bit C1 forms) are removed;
 * the few that only move the cursor inside the current line or erase it (`CSI K`, `CSI G`, `CSI C`, `CSI D`) are
 * applied, because progress output relies on them as much as on `\r`. Moves between rows go to CursorRows, which
 * holds the rows a line log can name (the unfinished line and those above it it already has); anything else that needs
 * a screen (scroll regions, absolute positions) cannot be expressed in a line log and is dropped. What a full-screen
 * program draws on the alternate screen is left out whole, as a terminal leaves it out of its scrollback.
 *
 * The current line has a cursor, as on a terminal: `\r` and `\b` only move it and later text overwrites in place,
 * so a `\r` at the end of a chunk needs no look-ahead (`\r\n` and `\n` both end the line with what it shows).
 * The line and its cursor are a `LineCells` (CursorRows.line), the sequences are read by an `EscapeParser`; this class
 * takes the text in runs and applies to the line what the controls and sequences do to it.
 *
 * Every decision depends on the characters alone, never on where chunks split: any split renders the same.
 */
export class LineRenderer {
  /** The unfinished line, the rows above it the log holds, and the cursor among them. */
  private readonly rows: CursorRows;
  private readonly colored: ColoredRuns;
  private readonly sequences: EscapeParser;
  /** The sink of the chunk being rendered: a `\n` inside an escape sequence ends a line too. */
  private sink: LineSink = NO_SINK;
  /** A high surrogate ending a chunk waits for its low half: a pair split by the chunking is still one character. */
  private pendingHigh = '';
  /**
   * Whether everything rendered since the last takeOnlyText was text, line feeds (a `\r` just before one included)
   * and SGR: nothing a terminal takes as a cursor move, a mode, a title or a screen switch (see takeOnlyText).
   */
  private onlyText = true;
  /** Where in the last chunk rendered the sequence the chunk before it had cut ended (-1: none, or not in it). */
  private carriedEnd = -1;
  /** Which screen showed right after that sequence, and the modes then. */
  private alternateAfterCarried = false;
  private modesAfterCarried: TerminalModes = FRESH_MODES;
  /** The last chunk ended with a `\r`: text only if the next one begins with its `\n`. */
  private crAtEnd = false;
  /** Queries the program sent its terminal since the last takeQueries, oldest first (bounded; more are dropped). */
  private queries: TerminalQuery[] = [];

  constructor(options: LineRendererOptions = {}) {
    const maxLineChars = positiveInteger('maxLineChars', options.maxLineChars ?? MAX_BUFFER_CHARS);
    this.rows = new CursorRows(maxLineChars, options.size ?? { rows: DEFAULT_ROWS, cols: DEFAULT_COLS }, options.ring);
    const maxSequenceChars = positiveInteger('maxSequenceChars', options.maxSequenceChars ?? MAX_ESCAPE_SEQUENCE_CHARS);
    this.colored = new ColoredRuns(maxLineChars, maxSequenceChars);
    const effects: LineEffects = {
      control: (unit) => this.control(unit, this.sink),
      lineCsi: (final, param) => this.lineCsi(final, param),
      lineCursor: (save) => {
        // The alternate screen has a saved cursor of its own (xterm.js keeps one per screen).
        if (this.sequences.alternateScreen) return;
        if (save) this.rows.line.saveCursor();
        else this.rows.line.restoreCursor();
      },
      fullReset: () => this.rows.cleared(this.sink),
      query: (query) => {
        if (this.queries.length < MAX_PENDING_TERMINAL_QUERIES) this.queries.push(query);
      },
    };
    this.sequences = new EscapeParser(maxSequenceChars, effects, options.start);
  }

  /** Whether the program sent its terminal a query since the last takeQueries. */
  get hasQueries(): boolean {
    return this.queries.length > 0;
  }

  /** The queries the program sent its terminal since the last call, oldest first. */
  takeQueries(): TerminalQuery[] {
    const taken = this.queries;
    this.queries = [];
    return taken;
  }

  /** Feeds a chunk; returns the lines it completed, oldest first. */
  push(chunk: string): string[] {
    const completed: string[] = [];
    this.render(chunk, {
      line: (text) => completed.push(text),
      lines: (input, from, to) => {
        for (let at = input.indexOf('\n', from); at !== -1 && at < to; at = input.indexOf('\n', from)) {
          completed.push(input.slice(from, at));
          from = at + 1;
        }
      },
    });
    return completed;
  }

  /**
   * Feeds a chunk; hands the lines it completes to `sink`, oldest first. `scanned`: the chunk is loaded in this
   * scanner and plain (printable ASCII and `\n`), so it needs no search for special units.
   */
  render(chunk: string, sink: LineSink, scanned?: LineScanner): void {
    // A high surrogate held back from the last chunk shifts every offset: the scan is then of no use.
    const scan = this.pendingHigh === '' ? scanned : undefined;
    this.sink = sink;
    const input = this.pendingHigh + chunk;
    this.pendingHigh = '';
    if (this.crAtEnd) {
      this.crAtEnd = false;
      if (input.charCodeAt(0) !== LF) this.onlyText = false;
    }
    const end = input.length;
    // The next `\n` and the next other special unit at or after `i`, each still valid while it is >= i: found
    // once, they serve every plain line before them, so a chunk of plain lines costs one regex scan and goes
    // to the sink as one run, not a string (or a regex call) per line.
    let lf = -1;
    let other = scan === undefined ? -1 : end;
    let wholeTried = false;
    let i = 0;
    // A sequence the last chunk cut: finished first, so that where it ends, and the screen it leaves, are known.
    this.carriedEnd = -1;
    if (!this.betweenSequences) {
      while (i < end && this.sequences.inSequence) if (!this.sequences.consume(input.charCodeAt(i))) i++;
      if (this.betweenSequences) {
        this.carriedEnd = i;
        this.alternateAfterCarried = this.sequences.alternateScreen;
        this.modesAfterCarried = this.sequences.modes;
      }
    }
    while (i < end) {
      if (this.sequences.inSequence) {
        // false: the sequence took the char; true: the sequence is over and the char is text, read it again.
        if (!this.sequences.consume(input.charCodeAt(i))) i++;
        continue;
      }
      if (other < i) other = nextMatch(SPECIAL_BUT_LF, input, i);
      if (this.sequences.alternateScreen) {
        // Drawn on the alternate screen (vim, less): a terminal keeps none of it in its scrollback, which is what the
        // line log is, and as lines it was garbled text; the screen shows it. Only the controls and sequences are
        // read, for the modes and the switch back, after which the line goes on where its cursor was.
        if (other === i) {
          const unit = input.charCodeAt(i);
          if (isHigh(unit) || isLow(unit)) this.onlyText = false;
          else this.controlUnit(unit, input, i, end, sink);
          i++;
        } else {
          i = other;
        }
        continue;
      }
      if (lf < i) lf = indexOrEnd(input.indexOf('\n', i), end);
      if (this.rows.onBottom && this.rows.line.isFresh) {
        // Whole plain lines on a fresh line: nothing to overwrite, pad or cut, so each is the line as written.
        // Taking one leaves the line fresh, so take all of them up to the next other special unit.
        const from = i;
        if (lf < other) {
          // Every whole line before the next other special unit, as one run: no line is longer than the run,
          // so when the run is within the bound, so is each of its lines, and the sink splits it in one pass.
          const last = input.lastIndexOf('\n', other - 1);
          if (last - i <= this.rows.line.maxChars) {
            this.rows.runOfLines(input, i, last + 1, sink, scan);
            i = last + 1;
            lf = indexOrEnd(input.indexOf('\n', i), end);
          }
        }
        while (lf < other && lf - i <= this.rows.line.maxChars) {
          this.rows.heldLine(input.slice(i, lf), sink);
          i = lf + 1;
          lf = indexOrEnd(input.indexOf('\n', i), end);
        }
        if (other + 1 === lf && lf < end && input.charCodeAt(other) === CR && other - i <= this.rows.line.maxChars) {
          // `\r\n`: the `\r` only sends the cursor home first.
          this.rows.heldLine(input.slice(i, other), sink);
          i = lf + 1;
        }
        if (i > from) continue;
        // Colored lines (see ColoredRuns) go to the sink as one run of plain lines. The whole rest of the chunk is
        // tried first (one replace and one scan when it is all colored lines); once that fails, the colored lines
        // are found sequence by sequence for the rest of the chunk, so a chunk never pays more than one failed try.
        // A try that took a run may be followed by another: a chunk longer than the sequence bound (Bun hands up to
        // 200 KiB at once) is tried in parts.
        const colored = wholeTried ? this.colored.lines(input, i, other, lf, end) : this.colored.rest(input, i, end);
        if (colored.end === i) wholeTried = true;
        if (colored.end > i) {
          const plain = colored.plain ?? this.colored.cutOut(input, i, colored.end);
          this.rows.runOfLines(plain, 0, plain.length, sink);
          i = colored.end;
          continue;
        }
      }
      const special = Math.min(lf, other);
      // The bulk of any output is plain text: take it a run at a time, up to the next special unit.
      if (special > i) {
        this.rows.line.put(input.slice(i, special));
        i = special;
        continue;
      }
      const unit = input.charCodeAt(i);
      if (isHigh(unit)) {
        if (i + 1 === end) {
          this.pendingHigh = input.slice(i);
        } else if (isLow(input.charCodeAt(i + 1))) {
          this.rows.line.put(input.slice(i, i + 2));
          i++;
        } else {
          this.onlyText = false;
          this.rows.line.put(REPLACEMENT);
        }
      } else if (isLow(unit)) {
        this.onlyText = false;
        this.rows.line.put(REPLACEMENT);
      } else {
        this.controlUnit(unit, input, i, end, sink);
      }
      i++;
    }
    this.rows.release(sink);
    this.sink = NO_SINK;
  }

  /** A control or DEL at `i` of `input` (whose length is `end`), read as text: it may start a sequence. */
  private controlUnit(unit: number, input: string, i: number, end: number, sink: LineSink): void {
    if (unit === CR && i + 1 === end) this.crAtEnd = true;
    else if (unit !== ESC && unit !== LF && !(unit === CR && input.charCodeAt(i + 1) === LF)) this.onlyText = false;
    this.ground(unit, sink);
  }

  /**
   * Whether the program is on the alternate screen (vim, less, top): every switch it wrote was seen here, at ingest,
   * so this is known however much output has been dropped since, without an emulator.
   */
  get alternateScreen(): boolean {
    return this.sequences.alternateScreen;
  }

  /**
   * Whether the output rendered since the last call was only text (printable characters, tabs), line feeds (with a
   * `\r` just before one) and SGR sequences (colors), and resets it. Such output changes nothing a screen shows but by
   * printing and scrolling: no mode, title, screen switch or cursor move, so a screen can skip over it (lazy-screen.ts).
   * A sequence still open at the end is judged when it ends. False whenever unsure.
   */
  takeOnlyText(): boolean {
    const only = this.onlyText && !this.sequences.notOnlyText;
    this.onlyText = true;
    this.sequences.notOnlyText = false;
    return only;
  }

  /**
   * In the last chunk rendered, the end of a sequence the chunk before it had cut, and which screen showed right
   * after it; undefined when none was cut there, or it did not end in the chunk.
   */
  carriedSequence(): { end: number; alternate: boolean; modes: TerminalModes } | undefined {
    return this.carriedEnd === -1
      ? undefined
      : { end: this.carriedEnd, alternate: this.alternateAfterCarried, modes: this.modesAfterCarried };
  }

  /** A cursor restore brought back a cursor saved before the renderer's start (see LineRendererOptions.start). */
  get restoredEarlierSave(): boolean {
    return this.sequences.restoredEarlierSave;
  }

  /** The terminal was resized after what was rendered so far: modes the resize resets follow (terminal-modes.ts). */
  resized(size?: RowsAndCols): void {
    this.sequences.resized();
    if (size !== undefined) this.rows.resize(size);
  }

  /** The modes a screen's restart gives back (terminal-modes.ts), as of everything rendered so far. */
  get modes(): TerminalModes {
    return this.sequences.modes;
  }

  /** Whether no escape sequence is under way: one cut by a chunk's end has not taken effect yet. */
  get betweenSequences(): boolean {
    return !this.sequences.inSequence;
  }

  /**
   * Between sequences, with no half of a surrogate pair held, the cursor on the unfinished line: the next chunk starts
   * afresh.
   */
  get atGround(): boolean {
    return !this.sequences.inSequence && this.pendingHigh === '' && this.rows.onBottom;
  }

  /**
   * Plain ASCII text with no line feed, kept as bytes in the ring (`span`), taken `atGround`: what `render` does with
   * such text (it goes on the current line), without making it a string.
   */
  putKept(span: RingSpan): void {
    if (this.crAtEnd) {
      // As render: a `\r` at the last chunk's end not followed by its `\n` moved the cursor.
      this.crAtEnd = false;
      this.onlyText = false;
    }
    this.carriedEnd = -1;
    this.rows.bottom.putKept(span);
  }

  /**
   * The current line when it is one span of plain bytes (LineCells.plainSpan) and nothing is carried from the last
   * chunk: a plain `\n` now would complete exactly that span's text. Undefined otherwise.
   */
  get plainLineSpan(): RingSpan | undefined {
    return this.atGround && !this.crAtEnd ? this.rows.bottom.plainSpan : undefined;
  }

  /**
   * Ends the current line (see plainLineSpan) as a `\n` would, for a caller that hands the line to the sink itself,
   * as the bytes it is.
   */
  endPlainLine(): void {
    this.carriedEnd = -1;
    this.rows.bottom.discard();
  }

  /**
   * Lines went to the log as bytes, past the renderer (OutputBuffer.keepPlain, endPlainLine included): which rows are
   * above is not known.
   */
  forgetRowsAbove(): void {
    this.rows.forget();
  }

  /** The ring offset of the oldest span the current line holds, or `none` when it holds none: see ByteRing.write. */
  oldestSpanOr(none: number): number {
    return this.rows.bottom.oldestSpanOr(none);
  }

  /** Nothing on the current line and the cursor home: whole plain lines put now are each exactly as written. */
  get freshLine(): boolean {
    return this.rows.onBottom && this.rows.bottom.isFresh;
  }

  /**
   * A fresh line and nothing carried from the last chunk (no sequence, no half of a surrogate pair, no `\r` at its
   * end): plain lines now are exactly as written, and rendering them would change nothing but the lines given.
   */
  get takesPlainLines(): boolean {
    return this.rows.bottom.isFresh && this.atGround && !this.crAtEnd;
  }

  /** The unterminated current line as it looks now (cached until it changes). */
  partial(): string {
    return this.rows.bottom.partial();
  }

  /** The first `limit` characters of `partial()`, without building all of it where the line is only appended to. */
  partialHead(limit: number): string {
    return this.rows.bottom.partialHead(limit);
  }

  /** The last `limit` characters of `partial()`, without building all of it. */
  partialTail(limit: number): string {
    return this.rows.bottom.partialTail(limit);
  }

  /** The unfinished line (LineCells), as a scanner checks that it was only appended to. */
  get openLine(): AppendedLine {
    return this.rows.bottom;
  }

  /** `partialTail(limit)` as bytes when it is all ASCII (see LineCells.partialTailAscii). */
  partialTailAscii(limit: number): Uint8Array | undefined {
    return this.rows.bottom.partialTailAscii(limit);
  }

  /** What the unfinished line lost from its head for being longer than the bound (see LineSink.line). */
  get partialHeadDropped(): number {
    return this.rows.bottom.headDropped;
  }

  /** Length of `partial()` without building it. */
  get partialLength(): number {
    return this.rows.bottom.partialLength;
  }

  /** Ends the stream: an unfinished escape sequence is dropped and a non-empty current line is completed. */
  flush(): string[] {
    if (this.pendingHigh !== '') this.rows.line.put(REPLACEMENT);
    this.pendingHigh = '';
    this.sequences.abandon();
    return this.rows.flush();
  }

  // ── What sequences do to the line ──────────────────────────────────────────────────────────

  /** A CSI sequence that applies to the line; `param`: its first parameter, -1 when it has none. */
  private lineCsi(final: number, param: number): void {
    if (this.sequences.alternateScreen) return;
    // A terminal clamps cursor moves at its right margin; the widest one we allow stands in for it.
    const count = Math.min(Math.max(param, 1), MAX_TERMINAL_DIMENSION);
    switch (final) {
      case 0x41: // A: cursor up
        this.rows.up(count, this.sink);
        return;
      case 0x46: // F: cursor up, to column 0
        if (this.rows.up(count, this.sink)) this.rows.line.carriageReturn();
        return;
      case 0x42: // B: cursor down
        this.rows.down(count, this.sink);
        return;
      case 0x45: // E: cursor down, to column 0
        if (this.rows.down(count, this.sink)) this.rows.line.carriageReturn();
        return;
      case 0x4a: // J: erase in display; of the screen, the line log holds the rows it can name (3: the scrollback only)
        if (param === 2) this.rows.cleared(this.sink);
        else if (param !== 3) this.rows.eraseInDisplay(param === 1);
        return;
      case 0x4b: // K: erase in line
        this.rows.line.eraseInLine(Math.max(param, 0));
        return;
      case 0x47: // G: cursor to column (1-based)
        this.rows.line.cursorToColumn(count - 1);
        return;
      case 0x43: // C: cursor forward
        this.rows.line.cursorForward(count);
        return;
      case 0x44: // D: cursor back
        this.rows.line.cursorBack(count);
        return;
      case 0x50: // P: delete characters (DCH)
        this.rows.line.deleteChars(count);
        return;
      case 0x40: // @: insert blanks (ICH)
        this.rows.line.insertBlanks(count);
        return;
      case 0x58: // X: erase characters (ECH)
        this.rows.line.eraseChars(count);
        return;
      case 0x73: // s: save the cursor (SCOSC; with parameters it sets margins, which a line has none of)
        if (param === -1) this.rows.line.saveCursor();
        return;
      case 0x75: // u: restore it (SCORC)
        if (param === -1) this.rows.line.restoreCursor();
        return;
      default:
        return;
    }
  }

  // ── Text and controls ──────────────────────────────────────────────────────────────────────

  private ground(unit: number, sink: LineSink): void {
    // Only C0/C1 controls and DEL reach here: plain text is taken a run at a time.
    if (!this.sequences.start(unit)) this.control(unit, sink);
  }

  /** The controls that act on the line; every other C0/C1 control has no visible effect and is dropped. */
  private control(unit: number, sink: LineSink): void {
    if (this.sequences.alternateScreen) {
      this.sequences.control(unit);
      return;
    }
    switch (unit) {
      case LF:
        this.rows.finishLine(sink);
        return;
      case CR:
        this.rows.line.carriageReturn();
        return;
      case BS:
        this.rows.line.backspace();
        return;
      case TAB:
        this.rows.line.put('\t');
        return;
      default:
        // No visible effect on the line; a few change modes a screen's restart gives back.
        this.sequences.control(unit);
        return;
    }
  }
}
