import { match } from 'ts-pattern';
import type { TerminalQuery } from '../buffer/escape-parser.js';
import { MIN_QUERY_ROUND_GAP_MS } from '../limits.js';

/** What answering needs of a PTY (PtySession gives the real ones). */
export interface AnswerPort {
  /** The queries the program sent since the last call, oldest first. */
  takeQueries(): TerminalQuery[];
  /** Whether the terminal is in raw (non-canonical) input mode now; undefined when that cannot be told. */
  rawInput(): Promise<boolean | undefined>;
  /** The cursor as the screen shows it after all output so far, 0-based. */
  cursor(): Promise<{ readonly row: number; readonly col: number }>;
  /** Puts the answer on the program's input. */
  write(bytes: Buffer): Promise<unknown>;
}

/**
 * What xterm.js and tmux answer: a VT100 with advanced video (`CSI ? 1 ; 2 c`), and for the secondary attributes the
 * version xterm.js gives (`CSI > 0 ; 276 ; 0 c`), which programs take for an xterm.
 */
const PRIMARY_ATTRIBUTES = '\u001b[?1;2c';
const SECONDARY_ATTRIBUTES = '\u001b[>0;276;0c';
const STATUS_OK = '\u001b[0n';

/**
 * Answers what a program asks its terminal, as a terminal does, on the program's input: its cursor position (from the
 * screen, caught up to all output so far), device status and attributes. Only while the terminal reads raw input:
 * a program that asks waits for the answer key by key, while in line mode the answer would sit in the line buffer and
 * be taken as the first characters of the next line typed (a file with such bytes in it, cat'ed at a shell). One
 * round at a time; queries that come meanwhile are answered by the next.
 */
export class TerminalAnswers {
  private round: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly port: AnswerPort,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * The program sent a query: answer it now, or after the round under way and at least MIN_QUERY_ROUND_GAP_MS after
   * it (each round asks `stty` for the input mode: a program flooding queries starts a process per gap, not per query).
   */
  note(): void {
    if (this.round !== undefined) {
      this.again = true;
      return;
    }
    this.round = this.answerAll()
      .catch(this.onError)
      .then(() =>
        this.again ? new Promise<void>((resolve) => setTimeout(resolve, MIN_QUERY_ROUND_GAP_MS)) : undefined,
      )
      .finally(() => {
        this.round = undefined;
        if (this.again) {
          this.again = false;
          this.note();
        }
      });
  }

  /**
   * Settles once every query seen so far is answered (no round under way or due), or after `boundMs`. A terminal
   * answers as a query arrives, before anything typed after it: a write waits for this first, or the answer lands in
   * the middle of the keys (vim took a late cursor report typed after `:w` for two F3 keys, and wrote to a file named
   * `<F3><F3>`).
   */
  async answered(boundMs: number): Promise<void> {
    if (this.round === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), boundMs);
    });
    try {
      while (this.round !== undefined) {
        if (await Promise.race([this.round.then(() => false), expired])) return;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Settles when no round is under way (tests). */
  get settled(): Promise<void> {
    return this.round ?? Promise.resolve();
  }

  private async answerAll(): Promise<void> {
    const queries = this.port.takeQueries();
    if (queries.length === 0 || (await this.port.rawInput()) !== true) return;
    let answer = '';
    for (const query of queries) answer += await this.answerOf(query);
    await this.port.write(Buffer.from(answer, 'latin1'));
  }

  private answerOf(query: TerminalQuery): Promise<string> | string {
    return match(query)
      .with('cursor', async () => {
        const { row, col } = await this.port.cursor();
        return `\u001b[${row + 1};${col + 1}R`;
      })
      .with('status', () => STATUS_OK)
      .with('primary-attributes', () => PRIMARY_ATTRIBUTES)
      .with('secondary-attributes', () => SECONDARY_ATTRIBUTES)
      .exhaustive();
  }
}
