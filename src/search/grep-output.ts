import { PtyError } from '../errors.js';
import type { GrepMatch } from './grep-request.js';

const NUMBERED_LINE = /^(\d+):/;

/**
 * Parses `grep -n` output (`LINE:text\n` per match). A trailing piece without its `\n` is a line cut off
 * when grep was stopped, and is dropped: only complete matches are reported.
 */
export function parseGrepOutput(stdout: string): GrepMatch[] {
  const end = stdout.lastIndexOf('\n');
  if (end < 0) return [];
  return stdout
    .slice(0, end)
    .split('\n')
    .map((line, index) => {
      const prefix = NUMBERED_LINE.exec(line);
      if (!prefix?.[1]) {
        throw new PtyError(
          'search_failed',
          `grep printed output line ${index + 1} without a line number; this is a bug in local-pty, please report it.`,
        );
      }
      return { lineNumber: Number(prefix[1]), text: line.slice(prefix[0].length) };
    });
}
