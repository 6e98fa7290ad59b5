import type { Observable } from 'rxjs';
import { OUTPUT_CHANNEL_REFILL_MS } from '../../src/limits.js';
import { type Spareable, SpareOutputChannel } from '../../src/streams/spare-output-channel.js';
import { testScheduler } from '../support/marbles.js';

/** A channel that records what the spare did with it. */
class FakeChannel implements Spareable {
  usable = true;
  readonly log: string[] = [];
  idle(): void {
    this.log.push('idle');
  }
  inUse(): void {
    this.log.push('inUse');
  }
  release(): void {
    this.log.push('release');
  }
}

/** Pairings handed out in order, each a cold marble; `calls` counts how many were asked for. */
function pairings(list: readonly Observable<FakeChannel>[]) {
  const made = { calls: 0 };
  const pair = () => {
    const next = list[made.calls++];
    if (next === undefined) throw new Error(`pairing ${made.calls} was not expected`);
    return next;
  };
  return { pair, made };
}

const REFILL = OUTPUT_CHANNEL_REFILL_MS;

describe('SpareOutputChannel: one output socket paired ahead of the next start', () => {
  it('pairs nothing until a start asks; the spare paired after it is the next start’s, which pairs none itself', () => {
    const scheduler = testScheduler();
    const [a, b, c] = [new FakeChannel(), new FakeChannel(), new FakeChannel()];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = [cold('---(a|)', { a }), cold('---(b|)', { b }), cold('---(c|)', { c })];
      const { pair, made } = pairings(list);
      const spare = new SpareOutputChannel(pair);
      expectObservable(spare.take(), '10ms ^').toBe('10ms ---(a|)', { a });
      expectObservable(spare.take(), '60ms ^').toBe('60ms (b|)', { b });
      scheduler.schedule(() => spare.close(), 150);
      expectSubscriptions(list[0]!.subscriptions).toBe('10ms ^--!');
      expectSubscriptions(list[1]!.subscriptions).toBe(`${10 + REFILL}ms ^--!`);
      expectSubscriptions(list[2]!.subscriptions).toBe(`${60 + REFILL}ms ^--!`);
      scheduler.schedule(() => expect(made.calls).toBe(3), 200);
    });
    // The first start's channel is the start's alone; the spare is idle until taken; the last one is released at close.
    expect(a.log).toEqual([]);
    expect(b.log).toEqual(['idle', 'inUse']);
    expect(c.log).toEqual(['idle', 'release']);
  });

  it('releases a spare that can carry no output any more, and the start pairs its own', () => {
    const scheduler = testScheduler();
    const [a, b, c, d] = [new FakeChannel(), new FakeChannel(), new FakeChannel(), new FakeChannel()];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = [cold('(a|)', { a }), cold('(b|)', { b }), cold('--(c|)', { c }), cold('(d|)', { d })];
      const spare = new SpareOutputChannel(pairings(list).pair);
      expectObservable(spare.take()).toBe('(a|)', { a });
      scheduler.schedule(() => (b.usable = false), 30);
      expectObservable(spare.take(), '40ms ^').toBe('40ms --(c|)', { c });
      expectSubscriptions(list[2]!.subscriptions).toBe('40ms ^-!');
      expectSubscriptions(list[3]!.subscriptions).toBe(`${40 + REFILL}ms (^!)`);
    });
    expect(b.log).toEqual(['idle', 'release']);
    expect(c.log).toEqual([]);
    expect(d.log).toEqual(['idle']);
  });

  it('close stops a pairing on its way and keeps none after; a later start still gets its own', () => {
    const scheduler = testScheduler();
    const [a, b, c] = [new FakeChannel(), new FakeChannel(), new FakeChannel()];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = [cold('(a|)', { a }), cold('----(b|)', { b }), cold('(c|)', { c })];
      const { pair, made } = pairings(list);
      const spare = new SpareOutputChannel(pair);
      expectObservable(spare.take()).toBe('(a|)', { a });
      scheduler.schedule(() => spare.close(), REFILL + 2);
      expectObservable(spare.take(), '60ms ^').toBe('60ms (c|)', { c });
      expectSubscriptions(list[1]!.subscriptions).toBe(`${REFILL}ms ^-!`);
      expectSubscriptions(list[2]!.subscriptions).toBe('60ms (^!)');
      scheduler.schedule(() => expect(made.calls).toBe(3), 200);
    });
    expect(b.log).toEqual([]);
    expect(c.log).toEqual([]);
  });

  it('close before the refill is due pairs nothing more', () => {
    const scheduler = testScheduler();
    const a = new FakeChannel();
    scheduler.run(({ cold, expectObservable }) => {
      const { pair, made } = pairings([cold('(a|)', { a })]);
      const spare = new SpareOutputChannel(pair);
      expectObservable(spare.take()).toBe('(a|)', { a });
      scheduler.schedule(() => spare.close(), 5);
      scheduler.schedule(() => expect(made.calls).toBe(1), 200);
    });
  });

  it('a refill that fails leaves no spare: the next start pairs its own, and a refill follows it again', () => {
    const scheduler = testScheduler();
    const [a, c, d] = [new FakeChannel(), new FakeChannel(), new FakeChannel()];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = [cold('(a|)', { a }), cold<FakeChannel>('-#'), cold('(c|)', { c }), cold('(d|)', { d })];
      const spare = new SpareOutputChannel(pairings(list).pair);
      expectObservable(spare.take()).toBe('(a|)', { a });
      expectObservable(spare.take(), '50ms ^').toBe('50ms (c|)', { c });
      expectSubscriptions(list[1]!.subscriptions).toBe(`${REFILL}ms ^!`);
      expectSubscriptions(list[3]!.subscriptions).toBe(`${50 + REFILL}ms (^!)`);
    });
    expect(d.log).toEqual(['idle']);
  });

  it('starts in a burst each pair their own, and one refill follows them', () => {
    const scheduler = testScheduler();
    const [a, b, c] = [new FakeChannel(), new FakeChannel(), new FakeChannel()];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = [cold('-(a|)', { a }), cold('-(b|)', { b }), cold('(c|)', { c })];
      const { pair, made } = pairings(list);
      const spare = new SpareOutputChannel(pair);
      expectObservable(spare.take()).toBe('-(a|)', { a });
      expectObservable(spare.take()).toBe('-(b|)', { b });
      expectSubscriptions(list[2]!.subscriptions).toBe(`${REFILL}ms (^!)`);
      scheduler.schedule(() => expect(made.calls).toBe(3), 200);
    });
    expect(c.log).toEqual(['idle']);
  });
});
