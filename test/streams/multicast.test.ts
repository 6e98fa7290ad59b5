import { take } from 'rxjs';
import { Multicast } from '../../src/streams/multicast.js';

function recorder() {
  const log: string[] = [];
  return { log, observer: { next: (v: string) => log.push(v), complete: () => log.push('|') } };
}

describe('Multicast', () => {
  it('gives each value to every subscriber there when it is emitted, and completes them all', () => {
    const hub = new Multicast<string>();
    const first = recorder();
    const second = recorder();
    hub.observable.subscribe(first.observer);
    hub.next('a');
    hub.observable.subscribe(second.observer);
    hub.next('b');
    hub.complete();
    hub.next('c');
    expect(first.log).toEqual(['a', 'b', '|']);
    expect(second.log).toEqual(['b', '|']);
  });

  it('says whether anyone listens, and lets go of a subscriber that unsubscribes', () => {
    const hub = new Multicast<string>();
    expect(hub.observed).toBe(false);
    const one = recorder();
    const subscription = hub.observable.subscribe(one.observer);
    expect(hub.observed).toBe(true);
    hub.next('a');
    subscription.unsubscribe();
    expect(hub.observed).toBe(false);
    hub.next('b');
    expect(one.log).toEqual(['a']);
  });

  it('a subscriber that ends during a value does not stop the others getting it', () => {
    const hub = new Multicast<string>();
    const first = recorder();
    const second = recorder();
    hub.observable.pipe(take(1)).subscribe(first.observer);
    hub.observable.subscribe(second.observer);
    hub.next('a');
    hub.next('b');
    expect(first.log).toEqual(['a', '|']);
    expect(second.log).toEqual(['a', 'b']);
    expect(hub.observed).toBe(true);
  });

  it('completes at once a subscriber that comes after the end', () => {
    const hub = new Multicast<string>();
    hub.complete();
    const late = recorder();
    hub.observable.subscribe(late.observer);
    expect(late.log).toEqual(['|']);
    expect(hub.observed).toBe(false);
  });
});
