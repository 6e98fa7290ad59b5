/** SGR (colors, attributes): prints nothing and moves nothing, so a run of text goes on across it. */
const SGR = /\x1b\[[0-9;:]*m|\x9b[0-9;:]*m/g;
/**
 * What ends a run of printed text: any other CSI, an OSC or other string, an ESC sequence, a C0 or C1 control. Each
 * alternative is a single pass of a character class (linear in the output).
 */
const NOT_PRINTED =
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[P^_X][^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?|[\x00-\x1f\x7f-\x9f]/g;

/**
 * The runs of text a piece of a program's output printed in one go, between cursor moves and controls: what tells a
 * row a full-screen program drew during a wait (a message shown again, the same as before) from one that only
 * stayed or scrolled.
 */
export class PrintedRuns {
  private readonly whole = new Set<string>();
  /** Runs longer than a row: they wrapped, and each row they filled is a part of them. */
  private readonly wrapped: string[] = [];

  constructor(raw: string, cols: number) {
    for (const run of raw.replace(SGR, '').split(NOT_PRINTED)) {
      const text = run.trim();
      if (text === '') continue;
      if (run.length > cols) this.wrapped.push(text);
      else this.whole.add(text);
    }
  }

  /** Whether `row` (as the screen shows it) was printed whole by one run, or is a part of a run that wrapped. */
  printed(row: string): boolean {
    const text = row.trim();
    return text !== '' && (this.whole.has(text) || this.wrapped.some((run) => run.includes(text)));
  }
}
