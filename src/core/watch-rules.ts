import type { Observable, SchedulerLike, Subscriber } from 'rxjs';
import type { OutputBuffer } from '../buffer/output-buffer.js';
import { partText } from '../buffer/byte-ring.js';
import { CompletedParts } from '../buffer/completed-parts.js';
import { MATCH_NOTIFY_INTERVAL_MS, NOTIFY_DESCRIPTION_CHARS, NOTIFY_MATCH_LINE_CHARS } from '../limits.js';
import { ChunkSubscriber, throughSubscriber } from '../operators/chunk-subscriber.js';
import { coalesceMatches, type Coalesced } from '../operators/coalesce-matches.js';
import { compileLinearPattern, type LinearPattern, type LineSpan } from '../patterns/linear-pattern.js';
import { lineNumbers } from '../patterns/output-scanner.js';
import type { WatchInput } from '../protocol/wait-schema.js';
import type { MatchEnvelope } from '../protocol/tool-results.js';
import type { PtyNotification } from './host-port.js';
import type { PtyActivity } from '../operators/wait-for.js';
import type { PtySession } from './pty-session.js';

export interface WatchHit {
  /** Index of the rule that matched (the first that does). */
  readonly rule: number;
  readonly pattern: string;
  readonly line: number;
  readonly text: string;
}

/** The rules as given, compiled once, before the PTY starts; a bad one refuses the spawn. */
export function compileWatch(tool: string, input: WatchInput): LinearPattern[] {
  return (input ?? []).map((rule, index) =>
    compileLinearPattern(`${tool}: watch[${index}].pattern`, rule.pattern, rule.ignoreCase ?? false),
  );
}

/**
 * Every finished line that matches a rule, tested once each as it completes, until the PTY is being stopped or
 * exits; then coalesced to at most one per MATCH_NOTIFY_INTERVAL_MS (what is held when the PTY ends is dropped:
 * its exit notification follows). Completes when the PTY does.
 */
export function watchHits$(
  session: PtySession,
  rules: readonly LinearPattern[],
  scheduler?: SchedulerLike,
): Observable<Coalesced<WatchHit>> {
  const { buffer } = session;
  const first = buffer.completedLines + 1;
  return session.activity$.pipe(
    throughSubscriber<PtyActivity, WatchHit>((destination) => new WatchScan(destination, buffer, rules, first)),
    coalesceMatches<WatchHit>(MATCH_NOTIFY_INTERVAL_MS, scheduler),
  );
}

/**
 * The hits in the lines each chunk completed, in order, until the first event that is not output (the PTY is being
 * stopped, or it exited): what `takeWhile` and `concatMap` did, as a class, since every chunk passes through it
 * (see tapHandler). A rule that throws ends the stream with its error.
 */
class WatchScan extends ChunkSubscriber<PtyActivity, WatchHit> {
  /** Filled at every chunk that finished lines (see CompletedParts). */
  private readonly completed = new CompletedParts();

  constructor(
    destination: Subscriber<WatchHit>,
    private readonly buffer: OutputBuffer,
    private readonly rules: readonly LinearPattern[],
    /** The first line not tested yet. */
    private nextLine: number,
  ) {
    super(destination);
  }

  protected onValue(event: PtyActivity): void {
    if (event.kind !== 'output') {
      this.complete();
      return;
    }
    const hits = this.newHits();
    for (let i = 0; i < hits.length; i++) this.destination.next(hits[i]);
  }

  private newHits(): WatchHit[] {
    const { buffer, rules } = this;
    const completed = buffer.completedLines;
    if (completed < this.nextLine) return NO_HITS;
    const parts = buffer.completedPartsFrom(this.nextLine, this.completed);
    this.nextLine = completed + 1;
    const hits: WatchHit[] = [];
    for (let k = 0; k < parts.length; k++) {
      // One by one: spread as arguments, a part's hits overflow the stack past about 120,000 (measured in Node 20).
      const part = parts.part(k);
      // Plain bytes that no rule's required literal is in: their text is never made.
      if (typeof part !== 'string' && !mayAnyMatchAscii(rules, part)) continue;
      for (const hit of hitsIn(partText(part), parts.firstLine(k), rules)) hits.push(hit);
    }
    this.completed.clear();
    return hits;
  }
}

const NO_HITS: WatchHit[] = [];

/**
 * Every line of `text` (whole lines) that some rule matches, in order, with the first rule that matches it. One
 * engine pass per rule over the whole text when nothing matches (the common case); lines become strings only where
 * a rule hits.
 */
function hitsIn(text: string, firstLine: number, rules: readonly LinearPattern[]): WatchHit[] {
  // The first rule to claim a line is the first that matches it: rules are tried in order.
  const byStart = new Map<number, { rule: number; span: LineSpan }>();
  rules.forEach((rule, index) => {
    for (const span of rule.matchingLines(text))
      if (!byStart.has(span.start)) byStart.set(span.start, { rule: index, span });
  });
  const hits = [...byStart.values()].sort((a, b) => a.span.start - b.span.start);
  const numbers = lineNumbers(
    text,
    firstLine,
    hits.map((h) => h.span.start),
  );
  return hits.map(({ rule, span }, i) => ({
    rule,
    pattern: (rules[rule] as LinearPattern).source,
    line: numbers[i] as number,
    text: text.slice(span.start, span.end),
  }));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The `pty.match` message the owner session receives. */
export function matchNotification(session: PtySession, { first, more }: Coalesced<WatchHit>): PtyNotification {
  const description = clip(session.info.description, NOTIFY_DESCRIPTION_CHARS);
  const envelope: MatchEnvelope = {
    type: 'pty.match',
    id: session.info.id,
    description,
    pattern: first.pattern,
    line: first.line,
    text: clip(first.text, NOTIFY_MATCH_LINE_CHARS),
    moreMatches: more,
    status: session.status,
  };
  return {
    owner: session.info.owner,
    label: `PTY output matched: ${description}`,
    text: JSON.stringify(envelope),
    envelope,
  };
}

/** Whether some rule may match `bytes` (see LinearPattern.mayMatchAscii): a loop, so a flood's parts make no closures. */
function mayAnyMatchAscii(rules: readonly LinearPattern[], bytes: Uint8Array): boolean {
  for (let i = 0; i < rules.length; i++) if ((rules[i] as LinearPattern).mayMatchAscii(bytes)) return true;
  return false;
}
