import { TestScheduler } from 'rxjs/testing';

/** A TestScheduler whose deep-equality failures show up as jest diffs. */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}
