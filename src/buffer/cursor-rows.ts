import { MAX_TERMINAL_DIMENSION } from '../limits.js';
import type { ByteRing } from './byte-ring.js';
import { HeldRows } from './held-rows.js';
import { LineCells, ONLY_SPACES } from './line-cells.js';
import type { LineScanner } from './line-scan.js';
import type { LineSink } from './line-renderer.js';
import { type RowsAndCols, RowsAbove } from './rows-above.js';

const LF = 0x0a;

/**
 * The rows of a screen a line log can name, and the cursor among them: the unfinished line at the bottom, the rows
 * above it the log already holds (RowsAbove, up to a screen's height less one), and the lines the chunk being rendered
 * finished one at a time, held to its end (HeldRows). Programs move their cursor up to draw rows again (a REPL's
 * multi-line input and its previews, prompt_toolkit's reserved rows): a row drawn again as the log holds it adds
 * nothing; drawn otherwise, the log cannot change the line it has, and takes the new drawing as a line of its own.
 * Anywhere else (above the rows it holds, below the unfinished line) a line log has no row, and a move there is
 * dropped.
 *
 * The renderer writes text on `line`, the row the cursor is on, and hands what ends or moves between rows here.
 */
export class CursorRows {
  /** The row the cursor is on: `bottom`, or `rowLine` while it is on a row above. */
  private current: LineCells;
  /** The unfinished line: the newest row, which reads and waits see. */
  readonly bottom: LineCells;
  /** A row above the bottom the cursor went back up to, being drawn again. */
  private readonly rowLine: LineCells;
  /** How many rows above the bottom the cursor is (0: on it). */
  private onRow = 0;
  private readonly rowsAbove: RowsAbove;
  /** Lines the chunk being rendered finished, held for a cursor that goes back up over empty rows (HeldRows). */
  private readonly held: HeldRows;

  constructor(maxLineChars: number, size: RowsAndCols, ring?: ByteRing) {
    this.bottom = new LineCells(maxLineChars, ring);
    this.current = this.bottom;
    this.rowLine = new LineCells(maxLineChars);
    this.rowsAbove = new RowsAbove(size.rows - 1, size.cols);
    this.held = new HeldRows(MAX_TERMINAL_DIMENSION, (text) => this.rowsAbove.logged(text));
  }

  /** The row the cursor is on, which text is written on. */
  get line(): LineCells {
    return this.current;
  }

  /** Whether the cursor is on the unfinished line (not on a row above it). */
  get onBottom(): boolean {
    return this.onRow === 0;
  }

  /** A line finished one at a time: held to the chunk's end (see HeldRows), then to `sink`. */
  heldLine(text: string, sink: LineSink): void {
    this.held.line(text, sink);
  }

  /** The chunk ends, or something other than a line comes: what is held goes to `sink`. */
  release(sink: LineSink): void {
    this.held.release(sink);
  }

  /**
   * Whole lines, `input` from `from` to `to`, to the sink as one run. Empty lines at its end are held with the line
   * before them (HeldRows), as lines finished one at a time are: prompt_toolkit's reserved rows come as colored lines.
   */
  runOfLines(input: string, from: number, to: number, sink: LineSink, scan?: LineScanner): void {
    this.held.release(sink);
    let end = to;
    while (end - 2 >= from && input.charCodeAt(end - 2) === LF) end--;
    if (end === to) {
      sink.lines(input, from, to, scan);
      this.rowsAbove.loggedRun(input, from, to);
      return;
    }
    const lastLine = end - 2 >= from ? Math.max(input.lastIndexOf('\n', end - 2) + 1, from) : from;
    if (lastLine > from) {
      sink.lines(input, from, lastLine, scan);
      this.rowsAbove.loggedRun(input, from, lastLine);
    }
    this.held.line(input.slice(lastLine, end - 1), sink);
    for (let empty = end; empty < to; empty++) this.held.line('', sink);
  }

  /**
   * From a blank line, up onto a line this chunk finished, over empty ones (HeldRows): that line is the current one
   * again. Else up onto a row the log already holds (RowsAbove), to draw it again. Anywhere else a line log has no row
   * to go to, and the move is dropped. Whether it went.
   */
  up(count: number, sink: LineSink): boolean {
    this.rowsAbove.trackRuns();
    if (this.onRow === 0 && this.current.isBlank) {
      const landed = this.held.takeBack(count, this.rowsAbove.width);
      if (landed !== undefined) {
        this.current.reopen(landed);
        return true;
      }
    }
    // Up over rows the log already holds (RowsAbove): the lines held so far go to it first, as the rows they are.
    // An unfinished line wider than the screen takes more than one row, which the log cannot count.
    if (this.onRow === 0 && this.bottom.partialLength > this.rowsAbove.width) return false;
    this.held.release(sink);
    const up = this.onRow + count;
    if (this.rowsAbove.at(up) === undefined) return false;
    this.toRow(up, sink);
    return true;
  }

  /** Down `count` rows, no further than the unfinished line (below it the log has no rows). Whether it went. */
  down(count: number, sink: LineSink): boolean {
    if (this.onRow === 0) return false;
    this.toRow(Math.max(this.onRow - count, 0), sink);
    return true;
  }

  /**
   * ED 0 / ED 1 (`upToCursor`): the current line from or up to the cursor, and on a row above the unfinished line, the
   * rows below it (the unfinished line with them) or above it are blank on the screen.
   */
  eraseInDisplay(upToCursor: boolean): void {
    this.current.eraseInLine(upToCursor ? 1 : 0);
    if (this.onRow === 0) return;
    this.rowsAbove.erase(this.onRow, !upToCursor);
    if (!upToCursor) this.bottom.eraseInLine(2);
  }

  /**
   * The whole screen cleared (ED 2, a full reset): tmux keeps what it showed in its scrollback (scroll-on-clear), so
   * the line that had text is finished as it was, and the next starts on a line of its own.
   */
  cleared(sink: LineSink): void {
    if (this.onRow > 0) this.toRow(0, sink);
    if (!this.current.isBlank) this.finishLine(sink);
    this.held.release(sink);
    this.rowsAbove.forget();
  }

  /** Hands the current line to `sink` (held with those before it, see HeldRows) and starts the next. */
  finishLine(sink: LineSink): void {
    // A line feed on a row above the unfinished line goes down a row the log has.
    if (this.onRow > 0) {
      this.toRow(this.onRow - 1, sink);
      // As every line feed here: the PTYs run -onlcr, and the log and the emulator (convertEol) take it as `\r\n`.
      this.current.carriageReturn();
      return;
    }
    // Read before take, which starts the next line.
    const headDropped = this.current.headDropped;
    if (headDropped === 0) {
      this.held.line(this.current.take(), sink);
    } else {
      this.held.release(sink);
      sink.line(this.current.take(), headDropped);
      this.rowsAbove.forget();
    }
  }

  /** Lines went to the log past the renderer, or a row's place is no longer known: no row above can be named. */
  forget(): void {
    this.rowsAbove.forget();
  }

  /** The terminal's new size: how many rows the cursor may go back up over, and how wide they are. */
  resize(size: RowsAndCols): void {
    this.rowsAbove.resize(size.rows - 1, size.cols);
  }

  /** The stream ends: a row above being drawn again is settled, and a non-empty unfinished line is completed. */
  flush(): string[] {
    const redrawn: string[] = [];
    if (this.onRow > 0) this.toRow(0, { line: (text) => redrawn.push(text), lines: () => undefined });
    const nonEmpty = this.bottom.partialLength > 0;
    const last = this.bottom.take();
    return nonEmpty ? [...redrawn, last] : redrawn;
  }

  /**
   * Takes the cursor to the row `up` rows above the unfinished line (0: onto it), in the column it is in. The row it
   * leaves, when above, was drawn again: drawn as the log holds it, or left blank, it adds nothing; drawn otherwise, the
   * log cannot change the line it has, and takes the new drawing as a line of its own, in front of the unfinished one.
   */
  private toRow(up: number, sink: LineSink): void {
    const column = this.current.column;
    if (this.onRow > 0) {
      const logged = this.rowsAbove.at(this.onRow) as string;
      const blank = this.rowLine.isBlank;
      const drawn = blank ? '' : this.rowLine.partial();
      this.rowLine.discard();
      const changed = blank ? !ONLY_SPACES.test(logged) : drawn !== logged;
      if (changed) {
        this.held.release(sink);
        sink.line(drawn);
      }
      this.rowsAbove.redrawn(this.onRow, changed ? drawn : logged);
    }
    this.onRow = up;
    if (up === 0) {
      this.current = this.bottom;
      if (this.bottom.column !== column) this.bottom.cursorToColumn(column);
      return;
    }
    this.rowLine.reopen(this.rowsAbove.erased(up) ? '' : (this.rowsAbove.at(up) as string), column);
    this.current = this.rowLine;
  }
}
