import type { SchedulerLike } from 'rxjs';
import { QuietClock } from '../../src/operators/quiet-clock.js';
import { testScheduler } from '../support/marbles.js';

/** Notes at the given frames, a stop at `stopAt`; the frames at which the clock said quiet. */
function quietFrames(
  quietMs: number,
  notes: readonly number[],
  until: number,
  stopAt?: number,
  scheduler?: SchedulerLike,
) {
  const rig = testScheduler();
  const fired: number[] = [];
  rig.run(() => {
    const clock = new QuietClock(quietMs, () => fired.push(rig.now()), scheduler ?? rig);
    for (const frame of notes) rig.schedule(() => clock.note(), frame);
    if (stopAt !== undefined) rig.schedule(() => clock.stop(), stopAt);
    rig.schedule(() => undefined, until);
  });
  return fired;
}

describe('QuietClock', () => {
  it('says quiet once quietMs pass after the latest note; a note within the spell starts it again', () => {
    // Quiet 5: notes at 1, 3 and 6 (each within 5 of the one before): quiet at 11; again 5 after the one at 14.
    expect(quietFrames(5, [1, 3, 6, 14], 30)).toEqual([11, 19]);
  });

  it('never says quiet before the first note', () => {
    expect(quietFrames(3, [], 30)).toEqual([]);
  });

  it('a flood arms one timer at a time, not one per note', () => {
    const rig = testScheduler();
    const delays: number[] = [];
    const fired: number[] = [];
    rig.run(() => {
      const counting: SchedulerLike = {
        now: () => rig.now(),
        schedule: ((work: () => void, delay?: number) => {
          delays.push(delay ?? 0);
          return rig.schedule(work, delay);
        }) as SchedulerLike['schedule'],
      };
      const clock = new QuietClock(8, () => fired.push(rig.now()), counting);
      // 20 notes 1 apart (frames 1–20), then quiet: 8 after the last one.
      for (let frame = 1; frame <= 20; frame++) rig.schedule(() => clock.note(), frame);
      rig.schedule(() => undefined, 40);
    });
    expect(fired).toEqual([28]);
    // Armed at the first note and re-armed only when it fired before the spell ended: 4 timers, not 20.
    expect(delays.length).toBeLessThanOrEqual(4);
    expect(delays[0]).toBe(8);
  });

  it('stop drops a spell still running, with its timer', () => {
    expect(quietFrames(5, [1], 30, 3)).toEqual([]);
    // Stopped after it said quiet: that one stands.
    expect(quietFrames(5, [1], 30, 7)).toEqual([6]);
  });
});
