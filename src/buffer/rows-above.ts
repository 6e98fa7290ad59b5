/** A terminal's size, as the line log needs it: how many rows a cursor can go up over, and how wide a row is. */
export interface RowsAndCols {
  readonly rows: number;
  readonly cols: number;
}

/**
 * The rows of the screen above the cursor's row, as far as the line log can name them: the newest lines it was handed
 * one at a time, each one screen row (no longer than the terminal is wide), up to a screen's height. A program that
 * moves the cursor up and draws those rows again (Node's REPL erasing its preview, prompt_toolkit redrawing its
 * multi-line input after each key) redraws lines the log already holds: what it draws there is compared with them, and
 * only a row drawn differently is new output. Lines that went to the log some other way (plain lines kept as bytes, a
 * line longer than a row, a cleared screen) leave the rows above unknown, and a cursor move up over them is dropped.
 */
export class RowsAbove {
  /** The rows as a ring, oldest first from `start`: what the log holds for each, and whether the screen erased it. */
  private texts: string[] = [];
  private erasedRows = new Uint8Array(0);
  private start = 0;
  private size = 0;
  private widthCols = 0;
  /** A run too long to look at now (see loggedRun); it holds the chunk's string until the next line or run. */
  private pending: { readonly input: string; readonly from: number; readonly to: number } | undefined;
  private runsTracked = false;

  /** `height`: the rows a screen has above its last (the terminal's rows - 1); `width`: its columns. */
  constructor(height: number, width: number) {
    this.resize(height, width);
  }

  /** The terminal's size changed: its rows were reflowed, so none is known. */
  resize(height: number, width: number): void {
    this.widthCols = width;
    this.texts = new Array<string>(Math.max(height, 0)).fill('');
    this.erasedRows = new Uint8Array(Math.max(height, 0));
    this.forget();
  }

  /** The screen's columns: a longer line takes more than one row. */
  get width(): number {
    return this.widthCols;
  }

  /** How many rows above are known. */
  get count(): number {
    this.settle();
    return this.size;
  }

  /** A line the log was handed on its own: the row above the cursor now, when it fits in one. */
  logged(text: string): void {
    this.settle();
    const capacity = this.texts.length;
    if (text.length > this.widthCols || capacity === 0) {
      this.forget();
      return;
    }
    const at = (this.start + this.size) % capacity;
    this.texts[at] = text;
    this.erasedRows[at] = 0;
    if (this.size < capacity) this.size++;
    else this.start = (this.start + 1) % capacity;
  }

  /**
   * From the first cursor move up on: runs of lines are taken as rows too (loggedRun). A program that never moves the
   * cursor up (a build, a log, a flood) never needs them, and its runs then cost nothing here: taking a run's last
   * screenful cost a flood of UTF-8 lines a third more CPU in the renderer.
   */
  trackRuns(): void {
    this.runsTracked = true;
  }

  /**
   * Whole lines the log was handed as one run (each ending in `\n`, `input` from `from` to `to`): the newest rows above.
   * Only the last screenful is ever looked at, and a run longer than a screenful of rows is looked at only if a cursor
   * goes up over it: a flood's runs cost a comparison each.
   */
  loggedRun(input: string, from: number, to: number): void {
    if (!this.runsTracked) {
      // A run of one line costs no more than a line handed on its own (a `\r\n` cut between chunks makes one).
      if (input.indexOf('\n', from) === to - 1) this.logged(input.slice(from, to - 1));
      else this.forget();
      return;
    }
    if (to - from > this.texts.length * (this.widthCols + 1)) {
      // It fills the screen, or holds a line wider than it: nothing older than it can be above.
      this.forget();
      this.pending = { input, from, to };
      return;
    }
    this.settle();
    this.takeRun(input, from, to);
  }

  /** Lines went to the log some other way: which rows are above is not known. */
  forget(): void {
    this.pending = undefined;
    this.start = 0;
    this.size = 0;
  }

  /** The rows of a run not looked at yet, made rows. */
  private settle(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    this.takeRun(pending.input, pending.from, pending.to);
  }

  private takeRun(input: string, from: number, to: number): void {
    const capacity = this.texts.length;
    let end = to - 1;
    let taken = 0;
    // Found newest first: the first line taken is the last row.
    while (end >= from && taken < capacity) {
      // lastIndexOf takes a negative position as 0, where it would find this line's own end.
      const start = end > from ? Math.max(input.lastIndexOf('\n', end - 1) + 1, from) : from;
      // Above a line wider than the screen nothing is known.
      if (end - start > this.widthCols) break;
      taken++;
      end = start - 1;
    }
    // Older than what the run fills, or than a wide line in it, nothing is above.
    if (end >= from) this.forget();
    for (let k = 0, line = end + 1; k < taken; k++) {
      const lineEnd = input.indexOf('\n', line);
      this.logged(input.slice(line, lineEnd));
      line = lineEnd + 1;
    }
  }

  /** What the log holds for the row `up` rows above the cursor's (1: the one just above), or undefined past what is known. */
  at(up: number): string | undefined {
    this.settle();
    return up >= 1 && up <= this.size ? this.texts[this.slot(up)] : undefined;
  }

  /** Whether an erase in display blanked the row `up` rows above since the log was handed it. */
  erased(up: number): boolean {
    return this.erasedRows[this.slot(up)] === 1;
  }

  /** The row `up` rows above was drawn again, and the log holds `text` for it now. */
  redrawn(up: number, text: string): void {
    const at = this.slot(up);
    this.texts[at] = text;
    this.erasedRows[at] = 0;
  }

  /** An erase in display from the row `up` rows above: the rows below it (`below`) or above it on the screen are blank. */
  erase(up: number, below: boolean): void {
    this.settle();
    const from = below ? 1 : up + 1;
    const to = below ? up - 1 : this.size;
    for (let at = from; at <= to; at++) this.erasedRows[this.slot(at)] = 1;
  }

  private slot(up: number): number {
    return (this.start + this.size - up) % this.texts.length;
  }
}
