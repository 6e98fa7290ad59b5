import { SessionActivity } from '../../src/hosts/session-activity.js';
import { MAX_TRACKED_SESSION_TURNS } from '../../src/limits.js';

const userMessage = (sessionID: string, agent: string, modelID: string, extra: Record<string, unknown> = {}) => ({
  type: 'message.updated',
  properties: { sessionID, info: { id: `msg_${agent}`, sessionID, role: 'user', agent, model: { providerID: 'p', modelID }, ...extra } },
});

describe('SessionActivity: the agent and model of each session’s last user message', () => {
  it('takes them from user messages only, the newest winning', () => {
    const activity = new SessionActivity();
    activity.observe(userMessage('ses_a', 'build', 'm0'));
    activity.observe(userMessage('ses_a', 'plan', 'm1'));
    activity.observe({ type: 'message.updated', properties: { info: { sessionID: 'ses_a', role: 'assistant', agent: 'other', model: { providerID: 'x', modelID: 'y' } } } });
    activity.observe({ type: 'message.updated', properties: { info: { sessionID: 'ses_a', role: 'user' } } });
    expect(activity.lastTurn('ses_a')).toEqual({ agent: 'plan', model: { providerID: 'p', modelID: 'm1' } });
    expect(activity.lastTurn('ses_b')).toBeUndefined();
  });

  it('ignores malformed events and forgets a deleted session', () => {
    const activity = new SessionActivity();
    for (const bad of [null, 7, { type: 'message.updated' }, { type: 'message.updated', properties: { info: { role: 'user', agent: 'a', model: { providerID: 'p' } } } }]) {
      expect(activity.observe(bad)).toBeUndefined();
    }
    activity.observe(userMessage('ses_a', 'plan', 'm1'));
    expect(activity.observe({ type: 'session.deleted', properties: { sessionID: 'ses_a', info: { id: 'ses_a' } } })).toBe('ses_a');
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
