/**
 * The REPL interactions of the loop suite, the same on every side: each statement prints a unique answer with
 * the program's own CLOCK_MONOTONIC time in ns (`T()`, defined by SETUP), so how late an answer reached the
 * driver is known independently of how it was driven.
 */

/** `python3 -q -i`: no banner; PYTHONSTARTUP is not set (both sides get only fixedEnvironment). */
export const PYTHON_REPL = ['python3', '-q', '-i'] as const;

/** Run once per session, untimed: the clock every answer stamps itself with; SETUP_DONE shows it ran. */
export const SETUP = "import time; T = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC); print('setup', 'done')";
export const SETUP_DONE = 'setup done$';

/** The primary prompt, alone on the last line (tmux and the line renderer both trim its trailing blank). */
export const PROMPT_LINE = /^>>> ?$/;
/** The same as a wait pattern (RE2). */
export const PROMPT_PATTERN = '^>>> ?$';

/**
 * Where an answer starts. The PTYs run with echo off (the plugin's default; the tmux side does the same), and
 * readline then shows neither the typed statement nor its Enter: a statement's first output line follows the
 * prompt on the same line (`>>> ans 7 …`), and a statement with no output leaves `>>> >>> `.
 */
const AFTER_PROMPT = '(?:^|>>> )';

export type Kind = 'short' | 'flood' | 'sleep';

export const KIND_TITLES: Record<Kind, string> = {
  short: 'short statement',
  flood: '10,000-line print',
  sleep: '300 ms statement',
};

export const FLOOD_LINES = 10_000;

export interface Interaction {
  readonly kind: Kind;
  /** Typed, then Enter. No backslash: pty_write's text escapes stay out of it. */
  readonly statement: string;
  /** The answer line; group 1 is the program's CLOCK_MONOTONIC ns when it printed it. */
  readonly answer: RegExp;
  /** The answer also needs the prompt after it (the end of a long output, and the REPL ready again). */
  readonly needsPrompt: boolean;
  /** What pty_write waits for (RE2): the answer line, or the prompt after it. */
  readonly waitPattern: string;
}

/**
 * Interaction number `k` of a session (unique within it). The answer is computed (`ans` is followed by 1 + k),
 * so it could not match the statement itself should an echo ever show it.
 */
export function interaction(kind: Kind, k: number): Interaction {
  switch (kind) {
    case 'short': {
      const answer = new RegExp(`${AFTER_PROMPT}ans ${k + 1} ([0-9]+)$`);
      return {
        kind,
        statement: `x = 1 + ${k}; print('ans', x, T())`,
        answer,
        needsPrompt: false,
        waitPattern: answer.source,
      };
    }
    case 'flood':
      // One print (one write: the tty makes stdout line-buffered) per line, as a program's log would come.
      return {
        kind,
        statement: `_ = [print('line', i) for i in range(${FLOOD_LINES})]; print('end', ${k}, T())`,
        answer: new RegExp(`^end ${k} ([0-9]+)$`),
        needsPrompt: true,
        waitPattern: PROMPT_PATTERN,
      };
    case 'sleep': {
      const answer = new RegExp(`${AFTER_PROMPT}done ${k} ([0-9]+)$`);
      return {
        kind,
        statement: `time.sleep(0.3); print('done', ${k}, T())`,
        answer,
        needsPrompt: false,
        waitPattern: answer.source,
      };
    }
  }
}

/**
 * The program's own output time (CLOCK_MONOTONIC ns) if `lines` hold the whole answer: the answer line, and for
 * `needsPrompt` the prompt on a later line with only blank lines between.
 */
export function answerIn(lines: readonly string[], it: Interaction): bigint | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const found = it.answer.exec(lines[i] as string);
    if (found === null) continue;
    if (it.needsPrompt) {
      const after = lines.slice(i + 1).filter((l) => l.trim() !== '');
      if (after.length !== 1 || !PROMPT_LINE.test(after[0] as string)) return undefined;
    }
    return BigInt(found[1] as string);
  }
  return undefined;
}
