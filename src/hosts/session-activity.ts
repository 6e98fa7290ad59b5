import { match } from 'ts-pattern';
import { BoundedMap } from '../core/bounded-map.js';
import { BoundedSet } from '../core/bounded-set.js';
import { MAX_TRACKED_BUSY_SESSIONS, MAX_TRACKED_SESSION_TURNS } from '../limits.js';
import { deletedSessionID, HostEvent } from './host-events.js';

const OBSERVED_TYPES = new Set(['session.deleted', 'session.status', 'session.idle', 'message.updated']);

/** The agent and model a session's turns run with: those of its last user message. */
export interface SessionTurn {
  readonly agent: string;
  readonly model: { readonly providerID: string; readonly modelID: string };
}

/**
 * What the host's events tell about each session: whether a turn is running (an exit notification for a busy
 * session is queued for its next step, one for an idle session wakes it), and the agent and model of its last
 * user message (a notification must keep them, however many steps the turn took since that message).
 */
export class SessionActivity {
  private readonly busy = new BoundedSet<string>(MAX_TRACKED_BUSY_SESSIONS);
  /** Per session, its newest user message seen: its id (to tell newer from older) and its agent and model. */
  private readonly turns = new BoundedMap<string, { readonly messageID: string; readonly turn: SessionTurn }>(
    MAX_TRACKED_SESSION_TURNS,
  );

  /** Feeds one raw host event; returns the id of a deleted session, if this was a deletion. */
  observe(raw: unknown): string | undefined {
    // Hosts send every bus event here (streaming message parts included): skip the ones we ignore cheaply.
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !OBSERVED_TYPES.has(type)) return undefined;
    if (
      type === 'message.updated' &&
      (raw as { properties?: { info?: { role?: unknown } } }).properties?.info?.role !== 'user'
    )
      return undefined;
    const parsed = HostEvent.safeParse(raw);
    if (!parsed.success) return undefined;
    return match(parsed.data)
      .with({ type: 'session.deleted' }, (e) => {
        const id = deletedSessionID(e);
        this.busy.delete(id);
        this.turns.delete(id);
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
      .with({ type: 'message.updated' }, ({ properties: { info } }) => {
        // OpenCode updates older messages too (a summary, a title): only the newest user message counts. Its
        // message ids sort in creation order.
        const known = this.turns.get(info.sessionID);
        if (info.agent && info.model && (known === undefined || info.id >= known.messageID)) {
          this.turns.set(info.sessionID, {
            messageID: info.id,
            turn: { agent: info.agent, model: { providerID: info.model.providerID, modelID: info.model.modelID } },
          });
        }
        return undefined;
      })
      .exhaustive();
  }

  isBusy(sessionID: string): boolean {
    return this.busy.has(sessionID);
  }

  /** The agent and model of the session's last user message seen in the events, if any was. */
  lastTurn(sessionID: string): SessionTurn | undefined {
    return this.turns.get(sessionID)?.turn;
  }
}
