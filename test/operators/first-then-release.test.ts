import { Observable } from 'rxjs';
import { firstThenRelease } from '../../src/operators/first-then-release.js';
import { testScheduler } from '../support/marbles.js';

describe('firstThenRelease', () => {
  it('released at once, it is take(1): the first value, completion, and the source let go in that frame', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('--a--b--c');
      expectObservable(source.pipe(firstThenRelease((letGo) => letGo()))).toBe('--(a|)');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('released later, the value and completion still come at once; what the source sends meanwhile goes nowhere', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('--a-b--c');
      // Let go 4 frames after the first value: b arrives while the source is still held.
      const out = source.pipe(firstThenRelease((letGo) => scheduler.schedule(letGo, 4)));
      expectObservable(out).toBe('--(a|)');
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('a subscriber that leaves before the first value lets go of the source at once, and nothing is released', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-----a');
      let releases = 0;
      expectObservable(
        source.pipe(
          firstThenRelease(() => {
            releases++;
          }),
        ),
        '^--!',
      ).toBe('----');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expect(releases).toBe(0);
    });
  });

  it("passes on the source's error or completion before any value", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('--#').pipe(firstThenRelease((letGo) => letGo()))).toBe('--#');
      expectObservable(cold('--|').pipe(firstThenRelease((letGo) => letGo()))).toBe('--|');
    });
  });

  it('a first value sent while the source is subscribed is released once its subscription exists', () => {
    let tornDown = false;
    const source = new Observable<number>((subscriber) => {
      subscriber.next(1);
      subscriber.next(2);
      return () => {
        tornDown = true;
      };
    });
    const got: number[] = [];
    let completed = false;
    let letGoLater: (() => void) | undefined;
    source.pipe(firstThenRelease((letGo) => (letGoLater = letGo))).subscribe({
      next: (v) => got.push(v),
      complete: () => (completed = true),
    });
    expect(got).toEqual([1]);
    expect(completed).toBe(true);
    expect(tornDown).toBe(false);
    letGoLater?.();
    expect(tornDown).toBe(true);
  });
});
