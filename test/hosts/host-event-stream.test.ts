import { firstValueFrom, take, toArray } from 'rxjs';
import { fromAsyncIterable } from '../../src/streams/host-event-stream.js';
import { EventChannel } from '../../src/testkit/fake-v2-host.js';
import { sleep } from '../../src/testkit/waits.js';

/** A hand-driven iterator: every next() waits for `push`/`finish`/`fail`; return() is counted. */
function manualIterator<T>(options: { returnThrows?: boolean; returnRejects?: boolean; noReturn?: boolean } = {}) {
  const pending: Array<{ resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }> = [];
  const state = { nextCalls: 0, returnCalls: 0 };
  const iterator: AsyncIterator<T> = {
    next: () => {
      state.nextCalls++;
      return new Promise((resolve, reject) => pending.push({ resolve, reject }));
    },
  };
  if (!options.noReturn) {
    iterator.return = () => {
      state.returnCalls++;
      if (options.returnThrows) throw new Error('return exploded');
      if (options.returnRejects) return Promise.reject(new Error('return rejected'));
      return Promise.resolve({ done: true, value: undefined });
    };
  }
  return {
    state,
    iterable: { [Symbol.asyncIterator]: () => iterator } as AsyncIterable<T>,
    push: (value: T) => pending.shift()?.resolve({ done: false, value }),
    finish: () => pending.shift()?.resolve({ done: true, value: undefined }),
    fail: (err: unknown) => pending.shift()?.reject(err),
    get waiting() {
      return pending.length;
    },
  };
}

describe('fromAsyncIterable', () => {
  it('emits the values in order and completes when an async generator ends', async () => {
    async function* source() {
      yield 1;
      yield 2;
      yield 3;
    }
    expect(await firstValueFrom(fromAsyncIterable(source()).pipe(toArray()))).toEqual([1, 2, 3]);
  });

  it('does not call return() on an iterator that finished by itself', async () => {
    const src = manualIterator<number>();
    const done = firstValueFrom(fromAsyncIterable(src.iterable).pipe(toArray()));
    src.push(1);
    await sleep(0);
    src.finish();
    expect(await done).toEqual([1]);
    expect(src.state.returnCalls).toBe(0);
  });

  it('does not open the iterator before subscribe', () => {
    const src = manualIterator<number>();
    const spy = jest.spyOn(src.iterable, Symbol.asyncIterator);
    const events$ = fromAsyncIterable(src.iterable);
    expect(spy).not.toHaveBeenCalled();
    const sub = events$.subscribe();
    expect(spy).toHaveBeenCalledTimes(1);
    sub.unsubscribe();
  });

  it('passes an iteration error on and does not call return()', async () => {
    const src = manualIterator<number>();
    const errors: unknown[] = [];
    fromAsyncIterable(src.iterable).subscribe({ error: (e) => errors.push(e) });
    src.fail(new Error('stream broke'));
    await sleep(0);
    expect(errors).toEqual([new Error('stream broke')]);
    expect(src.state.returnCalls).toBe(0);
  });

  it('calls return() at once when unsubscribed while next() is pending, and ignores what that next() brings later', async () => {
    const src = manualIterator<number>();
    const seen: number[] = [];
    let completed = false;
    const sub = fromAsyncIterable(src.iterable).subscribe({
      next: (v) => seen.push(v),
      complete: () => (completed = true),
    });
    src.push(1);
    await sleep(0);
    expect(seen).toEqual([1]);
    expect(src.waiting).toBe(1);
    sub.unsubscribe();
    expect(src.state.returnCalls).toBe(1);
    src.push(2);
    await sleep(0);
    expect(seen).toEqual([1]);
    expect(completed).toBe(false);
    expect(src.state.nextCalls).toBe(2);
    sub.unsubscribe();
    expect(src.state.returnCalls).toBe(1);
  });

  it('stops pulling when the subscriber unsubscribes inside next (take)', async () => {
    const src = manualIterator<number>();
    const result = firstValueFrom(fromAsyncIterable(src.iterable).pipe(take(1)));
    src.push(7);
    expect(await result).toBe(7);
    await sleep(0);
    expect(src.state.nextCalls).toBe(1);
    expect(src.state.returnCalls).toBe(1);
  });

  it('survives an iterator whose return() throws, rejects, or is missing', async () => {
    for (const options of [{ returnThrows: true }, { returnRejects: true }, { noReturn: true }]) {
      const src = manualIterator<number>(options);
      const sub = fromAsyncIterable(src.iterable).subscribe();
      expect(() => sub.unsubscribe()).not.toThrow();
      await sleep(0);
    }
  });

  it('releases a host channel that only ends when asked: no next() is left waiting', async () => {
    const channel = new EventChannel();
    const seen: unknown[] = [];
    const sub = fromAsyncIterable(channel).subscribe((e) => seen.push(e));
    await channel.publish({ type: 'a' });
    await sleep(0);
    expect(channel.waiting).toBe(true);
    sub.unsubscribe();
    expect(channel.returnCalls).toBe(1);
    expect(channel.waiting).toBe(false);
    expect(seen).toEqual([{ type: 'a' }]);
  });
});
