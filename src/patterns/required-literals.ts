import { MAX_PREFILTER_LITERAL_CHARS, MAX_PREFILTER_LITERALS } from '../limits.js';
import { isHighSurrogate } from '../text/surrogates.js';

/**
 * Texts of which every match of a pattern contains at least one, whole: a line holding none of them cannot match.
 * A wait on `error|fail` or `(?i)ready` otherwise runs re2js's automaton over every character of a flood, about
 * 13 ms of the host's CPU per MiB (docs/perf-journal.md, eleventh session); V8's own string search skips it in a
 * tenth of that.
 */
export interface RequiredLiterals {
  readonly literals: readonly string[];
  /** As RE2's (?i) matches them: every literal is ASCII here, whose case folds only k and s leave ASCII. */
  readonly ignoreCase: boolean;
}

/** Flags that stand alone, `(?i)` or `(?s-i)`: RE2 applies them to the rest of the group they are in. */
const FLAG_GROUP = /\(\?([imsU]*)(?:-([imsU]*))?\)/y;
/** The opening of a group that only groups: `(`, `(?:`, `(?P<name>`, `(?<name>`; not flags, not lookbehind. */
const PLAIN_GROUP = /\((?:\?:|\?P?<\w+>|(?!\?))/y;
/** A repetition such as `{3}`, `{2,}`, `{2,5}`; any other `{` is a literal to RE2. */
const REPETITION = /\{(\d+)(?:,\d*)?\}/y;
/** Escapes of fixed length that stand for no literal text: classes, anchors, control characters, any byte. */
const NON_LITERAL_ESCAPES = 'dDsSwWbBAzaftnrvC';
const ASCII_ALPHANUMERIC = /^[0-9A-Za-z]$/;

/** Syntax this reading does not take apart: the pattern gets no prefilter. */
class Unread extends Error {}

/**
 * For each top-level alternative, the texts of which one is in each of its matches: its longest literal run that
 * sits outside every class and that no repetition can leave out, or the same read of a group in it that no
 * repetition can leave out (`(error|fail): ` gives error and fail), whichever is longest at its shortest. Undefined
 * when some alternative has none, past MAX_PREFILTER_LITERALS texts, or when the pattern uses syntax this reading
 * does not take apart (`\Q…\E`, octal escapes, a `{` that is not a repetition, top-level flags set midway).
 * Undefined only costs speed: the engine then scans everything, as it did before.
 *
 * `source` must already have compiled, so it is valid RE2 syntax: this reads it, it does not check it.
 */
export function requiredLiterals(source: string, ignoreCase: boolean): RequiredLiterals | undefined {
  let caseless = ignoreCase;
  let at = 0;
  for (let flags = matchAt(FLAG_GROUP, source, 0); flags !== null; flags = matchAt(FLAG_GROUP, source, at)) {
    if (flags[1]?.includes('i')) caseless = true;
    if (flags[2]?.includes('i')) caseless = false;
    at += flags[0].length;
  }
  try {
    const reader = new PatternReader(source, caseless, at);
    const literals = reader.alternation();
    if (literals === undefined || reader.at !== source.length) return undefined;
    return { literals, ignoreCase: caseless };
  } catch (err) {
    if (err instanceof Unread) return undefined;
    throw err;
  }
}

class PatternReader {
  constructor(
    private readonly source: string,
    private readonly caseless: boolean,
    public at: number,
  ) {}

  /** Alternatives up to the `)` that ends the group (left unread) or the end of the pattern. */
  alternation(): string[] | undefined {
    const union = new Set<string>();
    let usable = true;
    for (;;) {
      const { required, flagsSet } = this.sequence();
      // Flags set midway change how what follows them in the group matches, later alternatives included.
      if (flagsSet || required === undefined) usable = false;
      else for (const literal of required) union.add(literal);
      if (this.source[this.at] !== '|') break;
      this.at++;
    }
    return usable && union.size <= MAX_PREFILTER_LITERALS ? [...union] : undefined;
  }

  private sequence(): { required: readonly string[] | undefined; flagsSet: boolean } {
    const { source } = this;
    let required: readonly string[] | undefined;
    let score = 0;
    let flagsSet = false;
    const offer = (literals: readonly string[]): void => {
      const shortest = Math.min(...literals.map((literal) => literal.length));
      if (shortest > score || (shortest === score && required !== undefined && literals.length < required.length)) {
        required = literals;
        score = shortest;
      }
    };
    let run = '';
    // Code units of the run's last literal: a repetition right after it applies to it alone.
    let lastLength = 0;
    const endRun = (): void => {
      if (run !== '') offer([shortened(run)]);
      run = '';
      lastLength = 0;
    };
    const repeatLast = (): void => {
      run = run.slice(0, run.length - lastLength);
      endRun();
    };
    const addLiteral = (char: string): void => {
      if (this.caseless && (char.length > 1 || char.charCodeAt(0) > 0x7f)) {
        endRun();
        return;
      }
      run += char;
      lastLength = char.length;
    };
    while (this.at < source.length) {
      const char = source[this.at] as string;
      if (char === '|' || char === ')') break;
      if (char === '\\') {
        const escaped = escapeAt(source, this.at);
        if (escaped === undefined) throw new Unread();
        escaped.literal === undefined ? endRun() : addLiteral(escaped.literal);
        this.at += escaped.length;
      } else if (char === '[') {
        const end = classEnd(source, this.at);
        if (end === -1) throw new Unread();
        endRun();
        this.at = end;
      } else if (char === '(') {
        endRun();
        const flags = matchAt(FLAG_GROUP, source, this.at);
        const plain = flags === null ? matchAt(PLAIN_GROUP, source, this.at) : null;
        if (flags !== null) {
          flagsSet = true;
          this.at += flags[0].length;
        } else if (plain !== null) {
          this.at += plain[0].length;
          const inner = this.alternation();
          if (source[this.at] !== ')') throw new Unread();
          this.at++;
          if (!this.optionalRepetition() && inner !== undefined) offer(inner);
        } else {
          this.skipGroup();
        }
      } else if (char === '*' || char === '+' || char === '?') {
        repeatLast();
        this.at++;
      } else if (char === '{') {
        const repetition = matchAt(REPETITION, source, this.at);
        if (repetition === null) throw new Unread();
        repeatLast();
        this.at += repetition[0].length;
      } else if (char === '.' || char === '^' || char === '$' || char === ']' || char === '}') {
        endRun();
        this.at++;
      } else {
        const whole = String.fromCodePoint(source.codePointAt(this.at) as number);
        addLiteral(whole);
        this.at += whole.length;
      }
    }
    endRun();
    return { required, flagsSet };
  }

  /** Reads the repetition after a group, if any: whether it lets the group match zero times. */
  private optionalRepetition(): boolean {
    const { source } = this;
    const char = source[this.at];
    let optional: boolean;
    if (char === '*' || char === '?' || char === '+') {
      optional = char !== '+';
      this.at++;
    } else if (char === '{') {
      const repetition = matchAt(REPETITION, source, this.at);
      if (repetition === null) throw new Unread();
      optional = Number(repetition[1]) === 0;
      this.at += repetition[0].length;
    } else {
      return false;
    }
    // A non-greedy mark after it (`*?`) is read by the caller as a repetition of nothing.
    return optional;
  }

  /** Past a group not read for literals (flags for its content, lookbehind), its repetition left to the caller. */
  private skipGroup(): void {
    const { source } = this;
    let depth = 0;
    while (this.at < source.length) {
      const char = source[this.at];
      if (char === '\\') {
        const escaped = escapeAt(source, this.at);
        if (escaped === undefined) throw new Unread();
        this.at += escaped.length;
        continue;
      }
      if (char === '[') {
        const end = classEnd(source, this.at);
        if (end === -1) throw new Unread();
        this.at = end;
        continue;
      }
      this.at++;
      if (char === '(') depth++;
      else if (char === ')' && --depth === 0) return;
    }
    throw new Unread();
  }
}

function matchAt(sticky: RegExp, source: string, at: number): RegExpExecArray | null {
  sticky.lastIndex = at;
  return sticky.exec(source);
}

/** Any part of a required text is required too: a long one is cut, never inside a surrogate pair. */
function shortened(literal: string): string {
  if (literal.length <= MAX_PREFILTER_LITERAL_CHARS) return literal;
  const cut = literal.slice(0, MAX_PREFILTER_LITERAL_CHARS);
  const last = cut.charCodeAt(cut.length - 1);
  return isHighSurrogate(last) ? cut.slice(0, -1) : cut;
}

/**
 * The escape at `at` (a backslash): its length, and the character it stands for if it is an escaped ASCII
 * punctuation or symbol (RE2: "escaped non-word characters are always themselves"). Undefined for escapes not read
 * here (`\Q…\E`, octal digits).
 */
function escapeAt(source: string, at: number): { length: number; literal?: string } | undefined {
  const next = source[at + 1];
  if (next === undefined) return undefined;
  if (next.charCodeAt(0) <= 0x7f && !ASCII_ALPHANUMERIC.test(next)) return { length: 2, literal: next };
  if (NON_LITERAL_ESCAPES.includes(next)) return { length: 2 };
  if (next === 'p' || next === 'P' || next === 'x') {
    if (source[at + 2] === '{') {
      const close = source.indexOf('}', at + 3);
      return close === -1 ? undefined : { length: close - at + 1 };
    }
    // \pL names a one-letter class; \x41 is two hex digits.
    return { length: next === 'x' ? 4 : 3 };
  }
  return undefined;
}

/**
 * The index just past the class that opens at `at`, or -1. As RE2 parses a class: a `]` first (after an optional
 * `^`) is a member, `[:name:]` is a named class, escapes are read as outside.
 */
function classEnd(source: string, at: number): number {
  let i = at + 1;
  if (source[i] === '^') i++;
  for (let first = true; i < source.length; first = false) {
    const char = source[i];
    if (char === ']' && !first) return i + 1;
    if (char === '[' && source[i + 1] === ':') {
      const close = source.indexOf(':]', i + 2);
      if (close !== -1) {
        i = close + 2;
        continue;
      }
    }
    if (char === '\\') {
      const escaped = escapeAt(source, i);
      if (escaped === undefined) return -1;
      i += escaped.length;
      continue;
    }
    i++;
  }
  return -1;
}
