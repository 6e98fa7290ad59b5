import { StepTurns } from '../../src/streams/step-turns.js';
import { crankedLoop as loop } from '../support/cranked-loop.js';

describe('StepTurns', () => {
  it('gives each step a turn of its own, oldest first, and schedules nothing once none waits', async () => {
    const l = loop();
    const turns = new StepTurns(l.schedule);
    const ran: string[] = [];
    const steps = ['a', 'b', 'c'].map((name) => turns.next().then(() => ran.push(name)));
    expect([ran, turns.queued, l.pending]).toEqual([[], 3, 1]);
    await l.turn();
    expect([ran, turns.queued, l.pending]).toEqual([['a'], 2, 1]);
    await l.turn();
    expect(ran).toEqual(['a', 'b']);
    await l.turn();
    await Promise.all(steps);
    expect([ran, turns.queued, l.pending]).toEqual([['a', 'b', 'c'], 0, 0]);
  });

  it('takes a step asked for during a turn in a later turn, never the same one', async () => {
    const l = loop();
    const turns = new StepTurns(l.schedule);
    const ran: string[] = [];
    const first = turns.next().then(() => {
      ran.push('first');
      return turns.next().then(() => ran.push('asked during the first'));
    });
    await l.turn();
    expect(ran).toEqual(['first']);
    expect(l.pending).toBe(1);
    await l.turn();
    await first;
    expect(ran).toEqual(['first', 'asked during the first']);
  });
});
