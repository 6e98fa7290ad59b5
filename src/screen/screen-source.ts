import type { ParserStart } from '../buffer/escape-parser.js';
import type { RawChunk } from '../buffer/raw-tail.js';

/** What a LazyScreen reads: the PTY's raw output with absolute offsets, and what the buffer knows of it (OutputBuffer). */
export interface ScreenSource {
  /** Characters of raw output ever appended: the absolute offset of the end. */
  readonly totalRawChars: number;
  /** The kept raw text from `offset` on; `from > offset` says output was lost in between. */
  rawSince(offset: number): { text: string; from: number };
  /** Absolute offset of the oldest kept raw character. */
  readonly rawStart: number;
  /** Whether everything from `offset` on is plain: printable ASCII and line feeds, begun outside any sequence. */
  plainFrom(offset: number): boolean;
  /** Whether everything from `offset` on is only text, line feeds and SGR: no mode, title, switch or cursor move. */
  onlyTextFrom(offset: number): boolean;
  /** Absolute offset of the newest kept `\n` before `before`, or -1. */
  lastRawLineFeedBefore(before: number): number;
  /** Whether no `\n` was written from `offset` on, dropped output included (false when unsure). */
  noLineFeedFrom(offset: number): boolean;
  /** The kept raw chunk holding `offset`, whole, with what is known of its start (RawChunk); undefined past the end. */
  rawChunkAt(offset: number): RawChunk | undefined;
  /** The screen shown and the modes a restart gives back (terminal-modes.ts) at `offset`; undefined when not known. */
  modesAt(offset: number): ParserStart | undefined;
  /** Whether the program is on the alternate screen, from every switch it wrote, dropped output included. */
  readonly alternateScreen: boolean;
}
