import { match } from 'ts-pattern';
import { BoundedSet } from '../core/bounded-set.js';
import { MAX_TRACKED_BUSY_SESSIONS } from '../limits.js';
import { deletedSessionID, HostEvent } from './host-events.js';

const OBSERVED_TYPES = new Set(['session.deleted', 'session.status', 'session.idle']);

/**
 * Which sessions are busy (a turn running), from the host's status events: an exit notification for a busy
 * session is queued for its next step, one for an idle session wakes it.
 */
export class SessionActivity {
  private readonly busy = new BoundedSet<string>(MAX_TRACKED_BUSY_SESSIONS);

  /** Feeds one raw host event; returns the id of a deleted session, if this was a deletion. */
  observe(raw: unknown): string | undefined {
    // Hosts send every bus event here (streaming message parts included): skip the ones we ignore cheaply.
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !OBSERVED_TYPES.has(type)) return undefined;
    const parsed = HostEvent.safeParse(raw);
    if (!parsed.success) return undefined;
    return match(parsed.data)
      .with({ type: 'session.deleted' }, (e) => {
        const id = deletedSessionID(e);
        this.busy.delete(id);
        return id;
      })
      .with({ type: 'session.status' }, (e) => {
        if (e.properties.status.type === 'idle') this.busy.delete(e.properties.sessionID);
        else this.busy.add(e.properties.sessionID);
        return undefined;
      })
      .with({ type: 'session.idle' }, (e) => {
        this.busy.delete(e.properties.sessionID);
        return undefined;
      })
      .exhaustive();
  }

  isBusy(sessionID: string): boolean {
    return this.busy.has(sessionID);
  }
}
