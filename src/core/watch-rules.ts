import { concatMap, from, type Observable, type SchedulerLike, takeWhile } from 'rxjs';
import { MATCH_NOTIFY_INTERVAL_MS, NOTIFY_DESCRIPTION_CHARS, NOTIFY_MATCH_LINE_CHARS } from '../limits.js';
import { coalesceMatches, type Coalesced } from '../operators/coalesce-matches.js';
import { compileLinearPattern, type LinearPattern } from '../patterns/linear-pattern.js';
import type { WatchInput } from '../protocol/wait-schema.js';
import type { MatchEnvelope } from '../protocol/tool-results.js';
import type { PtyNotification } from './host-port.js';
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
  let next = buffer.completedLines + 1;
  return session.activity$.pipe(
    takeWhile((event) => event.kind === 'output'),
    concatMap(() => {
      const completed = buffer.completedLines;
      if (completed < next) return [];
      const fresh = buffer.linesFrom(next, completed - next + 1).filter((l) => l.lineNumber <= completed);
      next = completed + 1;
      // One engine pass per rule over the new lines together; only a rule that hits somewhere is run line by line.
      const texts = fresh.map((l) => l.text);
      if (!rules.some((r) => r.firstMatch(texts) >= 0)) return [];
      return from(
        fresh.flatMap(({ lineNumber, text }) => {
          const rule = rules.findIndex((r) => r.test(text));
          return rule < 0 ? [] : [{ rule, pattern: rules[rule]!.source, line: lineNumber, text }];
        }),
      );
    }),
    coalesceMatches<WatchHit>(MATCH_NOTIFY_INTERVAL_MS, scheduler),
  );
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
