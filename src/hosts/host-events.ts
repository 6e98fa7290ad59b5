import { z } from 'zod';

/**
 * The event shapes both hosts send that local-pty acts on. `session.deleted` comes as the v2 wire shape
 * `{sessionID, info}` though the v1 typings say `{info}` only: both are accepted.
 */
export const SessionDeletedEvent = z.object({
  type: z.literal('session.deleted'),
  properties: z.union([
    z.object({ sessionID: z.string().min(1) }).loose(),
    z.object({ info: z.object({ id: z.string().min(1) }).loose() }).loose(),
  ]),
});

export const SessionStatusEvent = z.object({
  type: z.literal('session.status'),
  properties: z.object({ sessionID: z.string(), status: z.object({ type: z.string() }).loose() }).loose(),
});

export const SessionIdleEvent = z.object({
  type: z.literal('session.idle'),
  properties: z.object({ sessionID: z.string() }).loose(),
});

export const HostEvent = z.union([SessionDeletedEvent, SessionStatusEvent, SessionIdleEvent]);
export type HostEvent = z.infer<typeof HostEvent>;

export function deletedSessionID(event: z.infer<typeof SessionDeletedEvent>): string {
  const p = event.properties;
  return 'sessionID' in p && typeof p.sessionID === 'string' ? p.sessionID : (p as { info: { id: string } }).info.id;
}
