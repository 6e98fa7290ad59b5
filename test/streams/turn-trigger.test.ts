import { TurnTrigger } from '../../src/streams/turn-trigger.js';
import { gc } from '../support/v8-natives.js';

describe('TurnTrigger', () => {
  it('runs its turn once however often it is armed before it, and again when armed after', () => {
    const pending: Array<() => void> = [];
    let turns = 0;
    const trigger = new TurnTrigger(
      () => turns++,
      (run) => pending.push(run),
    );
    trigger.arm();
    trigger.arm();
    expect(pending).toHaveLength(1);
    pending.shift()?.();
    expect(turns).toBe(1);
    trigger.arm();
    expect(pending).toHaveLength(1);
  });

  it('keeps what its last scheduling returned (an Immediate) after the turn ran, through a full collection', async () => {
    const pending: Array<() => void> = [];
    const handles: Array<WeakRef<object>> = [];
    const trigger = new TurnTrigger(
      () => undefined,
      (run) => {
        pending.push(run);
        const handle = { scheduled: run };
        handles.push(new WeakRef(handle));
        return handle;
      },
    );
    trigger.arm();
    pending.shift()?.();
    trigger.arm();
    pending.shift()?.();
    // A WeakRef's target stays alive until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // The last one is kept (its hidden class with it, see Specimens); the one before is not held.
    expect(handles[1]?.deref()).toBeDefined();
    expect(handles[0]?.deref()).toBeUndefined();
  });
});
