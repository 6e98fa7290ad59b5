import {
  catchError,
  EMPTY,
  filter,
  map,
  mergeAll,
  type Observable,
  Subject,
  Subscription,
  take,
  takeUntil,
} from 'rxjs';
import { match } from 'ts-pattern';
import { MAX_PENDING_NOTIFICATIONS, MAX_SESSIONS, NOTIFY_TIMEOUT_MS } from '../limits.js';
import { deliverBounded } from '../operators/deliver-bounded.js';
import type { LinearPattern } from '../patterns/linear-pattern.js';
import { exitEnvelope, exitLabel } from './envelopes.js';
import type { HostPort, PtyNotification } from './host-port.js';
import type { PtySession } from './pty-session.js';
import { matchNotification, watchHits$ } from './watch-rules.js';

/**
 * What reaches an owner session by itself: each PTY's exit (pty.exit) and its watch rules' matches (pty.match), one
 * pipeline for both. Delivery is bounded in time (NOTIFY_TIMEOUT_MS each) and in number (MAX_PENDING_NOTIFICATIONS
 * pending: past it a new one is dropped, logged); nothing goes to an owner that `muted` names (deleted, or the plugin
 * closing). Ends at `close$`.
 */
export class Notifications {
  private readonly notifications$ = new Subject<PtyNotification>();
  /** One stream of pty.match notifications per watched PTY; each completes when its PTY ends. */
  private readonly watches$ = new Subject<Observable<PtyNotification>>();
  private readonly subscriptions = new Subscription();
  private pendingCount = 0;

  constructor(
    private readonly host: HostPort,
    private readonly muted: (owner: string) => boolean,
    close$: Observable<void>,
    private readonly ownerDeleted$: Observable<string> = EMPTY,
  ) {
    this.subscriptions.add(
      this.notifications$
        .pipe(
          deliverBounded((n, signal) => this.deliver(n, signal), {
            timeoutMs: NOTIFY_TIMEOUT_MS,
            concurrency: MAX_SESSIONS,
          }),
          takeUntil(close$),
        )
        .subscribe((outcome) => {
          this.pendingCount--;
          match(outcome)
            .with({ kind: 'delivered' }, () => undefined)
            .with({ kind: 'failed' }, ({ item, error }) =>
              host.log.warn(`${notificationKind(item)} notification not delivered`, {
                owner: item.owner,
                label: item.label,
                error: String(error),
              }),
            )
            .exhaustive();
        }),
    );
    // At most one live inner per PTY, and the registry holds at most MAX_SESSIONS PTYs.
    this.subscriptions.add(
      this.watches$.pipe(mergeAll(MAX_SESSIONS), takeUntil(close$)).subscribe((n) => this.enqueue(n)),
    );
  }

  /** Notifications accepted and not yet delivered or failed. */
  get pending(): number {
    return this.pendingCount;
  }

  /**
   * Watches `session` with `rules` (before its process starts, so its first output counts). Rules that fail end that
   * PTY's watch alone, logged: through the shared merge, one error would end every PTY's watches for the rest of the
   * plugin's life, and rethrow in the host.
   */
  watch(session: PtySession, rules: readonly LinearPattern[]): void {
    if (rules.length === 0) return;
    this.watches$.next(
      watchHits$(session, rules).pipe(
        map((hit) => matchNotification(session, hit)),
        catchError((err: unknown) => {
          this.host.log.warn('watch rules of a PTY failed; its watch ended', {
            id: session.info.id,
            error: String(err),
          });
          return EMPTY;
        }),
      ),
    );
  }

  /** A PTY has ended: its owner hears of it if it asked to (notifyOnExit). */
  exited(session: PtySession): void {
    // Checked before the envelope is made: none is wanted for a muted owner (enqueue checks again, for matches).
    if (!session.info.notifyOnExit || this.muted(session.info.owner)) return;
    const envelope = exitEnvelope(session);
    this.enqueue({ owner: session.info.owner, label: exitLabel(session), text: JSON.stringify(envelope), envelope });
  }

  /**
   * Hands one notification to the host, given up at once when its owner is deleted meanwhile (as at close): a
   * session that is gone has no one to tell, and the delivery held a place until its timeout.
   */
  private async deliver(notification: PtyNotification, signal: AbortSignal): Promise<void> {
    const deleted = new AbortController();
    const watching = this.ownerDeleted$
      .pipe(
        filter((owner) => owner === notification.owner),
        take(1),
      )
      .subscribe(() => deleted.abort(new Error(`session ${notification.owner} was deleted`)));
    try {
      await this.host.notify(notification, AbortSignal.any([signal, deleted.signal]));
    } finally {
      watching.unsubscribe();
    }
  }

  close(): void {
    this.subscriptions.unsubscribe();
    this.notifications$.complete();
    this.watches$.complete();
  }

  /** Every notification goes through here: none to a muted owner, bounded in number. */
  private enqueue(notification: PtyNotification): void {
    if (this.muted(notification.owner)) return;
    if (this.pendingCount >= MAX_PENDING_NOTIFICATIONS) {
      this.host.log.warn(`${notificationKind(notification)} notification dropped: too many pending`, {
        id: notification.envelope.id,
        limit: MAX_PENDING_NOTIFICATIONS,
      });
      return;
    }
    this.pendingCount++;
    this.notifications$.next(notification);
  }
}

const notificationKind = (n: PtyNotification): string =>
  match(n.envelope)
    .with({ type: 'pty.exit' }, () => 'exit')
    .with({ type: 'pty.match' }, () => 'match')
    .exhaustive();
