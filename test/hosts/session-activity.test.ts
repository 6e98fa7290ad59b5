import { SessionActivity } from '../../src/hosts/session-activity.js';
import { MAX_TRACKED_SESSION_TURNS } from '../../src/limits.js';

let seq = 0;
/** A user message.updated as OpenCode 1.18.33 sends it; ids sort in creation order, as OpenCode's do. */
const userMessage = (
  sessionID: string,
  agent: string,
  modelID: string,
  id = `msg_${String(++seq).padStart(12, '0')}`,
) => ({
  type: 'message.updated',
  properties: { sessionID, info: { id, sessionID, role: 'user', agent, model: { providerID: 'p', modelID } } },
});

describe('SessionActivity: the agent and model of each session’s last user message', () => {
  it('takes them from user messages only, the newest winning', () => {
    const activity = new SessionActivity();
    activity.observe(userMessage('ses_a', 'build', 'm0'));
    activity.observe(userMessage('ses_a', 'plan', 'm1'));
    activity.observe({
      type: 'message.updated',
      properties: {
        info: {
          id: 'msg_999999999998',
          sessionID: 'ses_a',
          role: 'assistant',
          agent: 'other',
          model: { providerID: 'x', modelID: 'y' },
        },
      },
    });
    activity.observe({
      type: 'message.updated',
      properties: { info: { id: 'msg_999999999998', sessionID: 'ses_a', role: 'user' } },
    });
    expect(activity.lastTurn('ses_a')).toEqual({ agent: 'plan', model: { providerID: 'p', modelID: 'm1' } });
    expect(activity.lastTurn('ses_b')).toBeUndefined();
  });

  it('keeps the newest user message when OpenCode updates an older one later (a summary, a title)', () => {
    const activity = new SessionActivity();
    const older = userMessage('ses_a', 'build', 'm0');
    activity.observe(older);
    activity.observe(userMessage('ses_a', 'plan', 'm1'));
    activity.observe(older);
    expect(activity.lastTurn('ses_a')).toEqual({ agent: 'plan', model: { providerID: 'p', modelID: 'm1' } });
    // The newest one updated again still counts.
    activity.observe(userMessage('ses_a', 'plan', 'm2', 'msg_999999999999'));
    activity.observe(userMessage('ses_a', 'plan', 'm3', 'msg_999999999999'));
    expect(activity.lastTurn('ses_a')?.model.modelID).toBe('m3');
  });

  it('ignores malformed events and forgets a deleted session', () => {
    const activity = new SessionActivity();
    const noId = {
      type: 'message.updated',
      properties: { info: { sessionID: 'ses_a', role: 'user', agent: 'a', model: { providerID: 'p', modelID: 'm' } } },
    };
    for (const bad of [
      null,
      7,
      { type: 'message.updated' },
      { type: 'message.updated', properties: { info: { role: 'user', agent: 'a', model: { providerID: 'p' } } } },
      noId,
    ]) {
      expect(activity.observe(bad)).toBeUndefined();
    }
    expect(activity.lastTurn('ses_a')).toBeUndefined();
    activity.observe(userMessage('ses_a', 'plan', 'm1'));
    expect(activity.lastTurn('ses_a')?.agent).toBe('plan');
    expect(
      activity.observe({ type: 'session.deleted', properties: { sessionID: 'ses_a', info: { id: 'ses_a' } } }),
    ).toBe('ses_a');
    expect(activity.lastTurn('ses_a')).toBeUndefined();
  });

  it(`remembers at most ${MAX_TRACKED_SESSION_TURNS} sessions, forgetting the least recently active`, () => {
    const activity = new SessionActivity();
    activity.observe(userMessage('ses_first', 'plan', 'm'));
    for (let i = 0; i < MAX_TRACKED_SESSION_TURNS - 1; i++) activity.observe(userMessage(`ses_${i}`, 'build', 'm'));
    // Active again: moves to the newest end.
    activity.observe(userMessage('ses_first', 'plan', 'm2'));
    activity.observe(userMessage('ses_new', 'build', 'm'));
    expect(activity.lastTurn('ses_first')).toEqual({ agent: 'plan', model: { providerID: 'p', modelID: 'm2' } });
    expect(activity.lastTurn('ses_0')).toBeUndefined();
    expect(activity.lastTurn('ses_1')).toBeDefined();
  });
});
