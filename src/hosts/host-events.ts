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

const SessionStatusEvent = z.object({
  type: z.literal('session.status'),
  properties: z.object({ sessionID: z.string(), status: z.object({ type: z.string() }).loose() }).loose(),
});

const SessionIdleEvent = z.object({
  type: z.literal('session.idle'),
  properties: z.object({ sessionID: z.string() }).loose(),
});

/** The model a turn runs with, as OpenCode writes it on a user message and takes it in a prompt. */
const TurnModel = z.object({ providerID: z.string().min(1), modelID: z.string().min(1) });

/**
 * A message written or updated. Only user messages matter here: they carry the agent and model the session's
 * next turn runs with (OpenCode 1.18.33 sends every message's info this way, to the plugin hook too).
 */
export const MessageUpdatedEvent = z.object({
  type: z.literal('message.updated'),
  properties: z
    .object({
      info: z
        .object({
          id: z.string().min(1),
          sessionID: z.string().min(1),
          role: z.string(),
          agent: z.string().min(1).optional(),
          model: TurnModel.loose().optional(),
        })
        .loose(),
    })
    .loose(),
});

export const HostEvent = z.union([SessionDeletedEvent, SessionStatusEvent, SessionIdleEvent, MessageUpdatedEvent]);
export type HostEvent = z.infer<typeof HostEvent>;

export function deletedSessionID(event: z.infer<typeof SessionDeletedEvent>): string {
  const p = event.properties;
  return 'sessionID' in p && typeof p.sessionID === 'string' ? p.sessionID : (p as { info: { id: string } }).info.id;
}
