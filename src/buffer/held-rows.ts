import type { LineSink } from './line-renderer.js';

/**
 * The lines a chunk finished one at a time, held until the chunk's end: a line and the empty lines after it, which a
 * cursor moved up in the same chunk takes back, as a terminal's cursor goes back up over empty rows. prompt_toolkit
 * (IPython, ptpython, pgcli) reserves rows below its prompt with a CRLF each and moves back up over them at once; in
 * the log that left a dozen empty lines and a second copy of the prompt per IPython prompt. Held within a chunk only,
 * so what a read, a wait or a watch rule sees between chunks is as before.
 */
export class HeldRows {
  private readonly rows: string[] = [];

  /**
   * `max`: the most rows held (a cursor moves up at most a screen's rows); `released`: told of each line as it goes to
   * the sink.
   */
  constructor(
    private readonly max: number,
    private readonly released: (text: string) => void,
  ) {}

  /** A finished line with nothing cut from its head: held, after handing on those held before it if need be. */
  line(text: string, sink: LineSink): void {
    if (!(text === '' && this.rows.length > 0 && this.rows.length < this.max)) this.release(sink);
    this.rows.push(text);
  }

  /** Hands every held line to `sink`, oldest first. */
  release(sink: LineSink): void {
    if (this.rows.length === 0) return;
    for (const row of this.rows) {
      sink.line(row);
      this.released(row);
    }
    this.rows.length = 0;
  }

  /**
   * The cursor moved up `count` rows from an empty line: the line it lands on, taken back with the empty ones after
   * it; undefined (nothing taken) when it lands above what is held, or on a line wider than the screen's `width`.
   */
  takeBack(count: number, width: number): string | undefined {
    if (count < 1 || count > this.rows.length) return undefined;
    const landed = this.rows[this.rows.length - count] as string;
    // A line wider than the screen took more than one row: the rows up from here are not the lines.
    if (landed.length > width) return undefined;
    this.rows.length -= count;
    return landed;
  }
}
