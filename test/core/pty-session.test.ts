import { match } from 'ts-pattern';
import { NEVER, Observable, of, shareReplay, Subject, tap } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { bufferShapes, PtySession, type PtyInfo, sessionShapes } from '../../src/core/pty-session.js';
import { Reaper } from '../../src/engine/reaper.js';
import { eventShapes, type PtyEvent } from '../../src/streams/pty-events.js';
import type { PtyHandle, PtyProcessDeps } from '../../src/streams/pty-process.js';
import type { TerminationReport } from '../../src/streams/session-report.js';
import type { ShapeKeeper } from '../../src/shapes/shape-keeper.js';
import { handlerSubscriberShapes } from '../../src/operators/tap-handler.js';
import { matchShapes } from '../../src/shapes/match-shapes.js';
import { testScheduler } from '../support/marbles.js';

const info = (over: Partial<PtyInfo> = {}): PtyInfo => ({
  id: 'pty_00000001',
  owner: 'ses_a',
  title: 't',
  description: 'd',
  command: 'cat',
  args: [],
  workdir: '/tmp',
  createdAt: '2026-01-01T00:00:00.000Z',
  timeoutSeconds: null,
  notifyOnExit: false,
  ...over,
});

const spec = { command: 'cat', args: [], workdir: '/tmp', rows: 40, cols: 120 };

/** A fake process stream in virtual time: `s` started, `o` output, `x` exit 0, `k` exit 143 (killed). */
function fakeProcess(scheduler: TestScheduler, marbles: string) {
  const terminations: number[] = [];
  const handle: PtyHandle = {
    pid: 100,
    terminalSid: 101,
    write: async (b) => b.length,
    terminal: () => undefined,
    terminate: () => {
      terminations.push(scheduler.now());
      return of({ termed: 1, escalated: false, scriptKilled: false, survivors: { count: 0, listed: [] } });
    },
  };
  const values: Record<string, PtyEvent> = {
    s: { kind: 'started', handle },
    o: { kind: 'output', text: 'line\n', bytes: 5, ascii: false },
    x: {
      kind: 'exit',
      exitCode: 0,
      signal: null,
      inferredSignal: null,
      scriptStderr: '',
      lingering: { count: 0, listed: [] },
    },
    k: {
      kind: 'exit',
      exitCode: 143,
      signal: null,
      inferredSignal: 'SIGTERM',
      scriptStderr: '',
      lingering: { count: 0, listed: [] },
    },
  };
  const events = scheduler.createColdObservable<PtyEvent>(marbles, values);
  return {
    events,
    terminations,
    spawn: (() => events) as unknown as typeof import('../../src/streams/pty-process.js').ptyProcess$,
  };
}

function session(
  scheduler: TestScheduler,
  process: ReturnType<typeof fakeProcess>,
  deps: { close$?: Observable<unknown>; ownerDeleted$?: Observable<string> } = {},
  over: Partial<PtyInfo> = {},
) {
  const exits: string[] = [];
  const s = new PtySession(info(over), spec, {
    reaper: new Reaper(),
    close$: deps.close$ ?? NEVER,
    ownerDeleted$: deps.ownerDeleted$ ?? NEVER,
    onExit: (x) => exits.push(`${scheduler.now()}:${x.status}`),
    scheduler,
    spawn: process.spawn,
  });
  return { s, exits };
}

describe('PtySession lifecycle races (virtual time)', () => {
  it('a natural exit: status exited, one exit callback, output in the buffer, source released', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const p = fakeProcess(scheduler, 's-o-x|');
      const { s, exits } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.flush();
      expect(s.status).toBe('exited');
      expect(exits).toEqual(['4:exited']);
      expect(s.buffer.totalLines).toBe(1);
      expect(p.terminations).toEqual([]);
      expectSubscriptions(p.events.subscriptions).toBe('^----!');
    });
  });

  it('kill before the exit: terminates once, the exit that follows is reported as killed', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const p = fakeProcess(scheduler, 's-o-----k|');
      const { s, exits } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.schedule(() => void s.stop('kill'), 3);
      scheduler.schedule(() => void s.stop('kill'), 5);
      scheduler.flush();
      expect(p.terminations).toEqual([3]);
      expect(s.status).toBe('killed');
      expect(s.exitCode).toBe(143);
      expect(s.signal).toBe('SIGTERM');
      expect(s.signalInferred).toBe(true);
      expect(exits).toEqual(['8:killed']);
      expectSubscriptions(p.events.subscriptions).toBe('^--------!');
    });
  });

  it('kill racing a natural exit that came first: stays exited, nothing is signalled', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const p = fakeProcess(scheduler, 's-x|');
      const { s } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.schedule(() => void s.stop('kill'), 2);
      scheduler.flush();
      expect(s.status).toBe('exited');
      expect(p.terminations).toEqual([]);
    });
  });

  it('timeoutSeconds ends it with status timeout', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const p = fakeProcess(scheduler, 's 1500ms k|');
      const { s, exits } = session(scheduler, p, {}, { timeoutSeconds: 1 });
      void s.start().catch(() => undefined);
      scheduler.flush();
      expect(p.terminations).toEqual([1000]);
      expect(s.status).toBe('timeout');
      expect(exits).toEqual(['1501:timeout']);
    });
  });

  it('owner deleted before the start event: the stream is cut (its teardown terminates) and start rejects', () => {
    const scheduler = testScheduler();
    // Returned: the rejection's check is a promise, which the test must wait for.
    return scheduler.run(({ hot, expectSubscriptions }) => {
      const p = fakeProcess(scheduler, '-----s-o-x|');
      const deleted = hot<string>('--a', { a: 'ses_a' });
      const { s } = session(scheduler, p, { ownerDeleted$: deleted });
      let rejected: unknown;
      s.start().catch((e) => (rejected = e));
      scheduler.flush();
      expectSubscriptions(p.events.subscriptions).toBe('^-!');
      expect(s.status).toBe('killed');
      expect(p.terminations).toEqual([]);
      return Promise.resolve().then(() => expect(rejected).toMatchObject({ code: 'owner_deleted' }));
    });
  });

  it('a stream that fails after the start ends the PTY and still tells its owner, once', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const p = fakeProcess(scheduler, 's-o-#');
      const { s, exits } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.flush();
      expect(s.status).toBe('exited');
      expect(exits).toEqual(['4:exited']);
    });
  });

  it('another owner being deleted changes nothing', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot }) => {
      const p = fakeProcess(scheduler, 's---x|');
      const { s } = session(scheduler, p, { ownerDeleted$: hot<string>('--b', { b: 'ses_b' }) });
      void s.start().catch(() => undefined);
      scheduler.flush();
      expect(s.status).toBe('exited');
      expect(p.terminations).toEqual([]);
    });
  });

  it('plugin close that happened before the session subscribed (replayed) cuts it before start', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const p = fakeProcess(scheduler, 's--k|');
      const replayed = new Observable<unknown>((sub) => sub.next(undefined));
      const { s } = session(scheduler, p, { close$: replayed });
      void s.start().catch(() => undefined);
      scheduler.flush();
      // The stop is seen before the process stream is even subscribed: nothing is started at all.
      expectSubscriptions(p.events.subscriptions).toBe([]);
      expect(p.terminations).toEqual([]);
      expect(s.status).toBe('killed');
    });
  });

  it('plugin close after start terminates through the handle and waits for the exit', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot }) => {
      const p = fakeProcess(scheduler, 's-o----k|');
      const { s } = session(scheduler, p, { close$: hot('--c') });
      void s.start().catch(() => undefined);
      scheduler.flush();
      expect(p.terminations).toEqual([2]);
      expect(s.status).toBe('killed');
      expect(s.exitCode).toBe(143);
    });
  });

  it('a stream that does not end after a sweep emptied its session is cut a margin later', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const p = fakeProcess(scheduler, 's-o');
      const { s } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.schedule(() => void s.stop('kill'), 10);
      scheduler.flush();
      // The fake sweep reports the session empty at once: the exit must follow within the 1 s margin.
      const cutAt = 10 + 1_000;
      expectSubscriptions(p.events.subscriptions).toBe(`^ ${cutAt - 1}ms !`);
      expect(s.status).toBe('killed');
      expect(s.exitCode).toBeNull();
    });
  });
});

describe('PtySession and lingering members (virtual time)', () => {
  const one = { count: 1, listed: [{ pid: 201, command: 'sleep 300' }] };
  const none = { count: 0, listed: [] };

  /** `s` started, `x` exit 0 with one member left, `k` exit 143 with one member left, `m` the session emptied. */
  function lingeringProcess(scheduler: TestScheduler, marbles: string, sweep: string) {
    const terminations: number[] = [];
    const sweep$ = scheduler.createColdObservable(sweep, {
      r: { termed: 1, escalated: true, scriptKilled: false, survivors: none },
    });
    const handle: PtyHandle = {
      pid: 100,
      terminalSid: 101,
      write: async (b) => b.length,
      terminal: () => undefined,
      terminate: () => {
        terminations.push(scheduler.now());
        return sweep$;
      },
    };
    const events = scheduler.createColdObservable<PtyEvent>(marbles, {
      s: { kind: 'started', handle },
      x: { kind: 'exit', exitCode: 0, signal: null, inferredSignal: null, scriptStderr: '', lingering: one },
      k: { kind: 'exit', exitCode: 143, signal: null, inferredSignal: 'SIGTERM', scriptStderr: '', lingering: one },
      m: { kind: 'members', lingering: none },
    });
    return {
      events,
      sweep$,
      terminations,
      spawn: (() => events) as unknown as typeof import('../../src/streams/pty-process.js').ptyProcess$,
    };
  }

  it('kill racing a leader that exits with members left: one sweep, status killed only once the session is empty, one notice', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const p = lingeringProcess(scheduler, 's--k--m|', '---r|');
      const { s, exits } = session(scheduler, p);
      void s.start().catch(() => undefined);
      scheduler.schedule(() => void s.stop('kill'), 2);
      scheduler.schedule(() => expect(s.status).toBe('lingering'), 4);
      scheduler.flush();
      expect(p.terminations).toEqual([2]);
      expect(s.status).toBe('killed');
      expect(s.lingering).toEqual(none);
      expect(exits).toEqual(['6:killed']);
      expectSubscriptions(p.events.subscriptions).toBe('^------!');
    });
  });

  it('plugin close while a sweep is freezing starts no second sweep; the first reason names the status', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const close$ = scheduler.createHotObservable('-----c');
      const p = lingeringProcess(scheduler, 's----------k-m|', '----------r|');
      const { s } = session(scheduler, p, { close$ });
      void s.start().catch(() => undefined);
      scheduler.schedule(() => void s.stop('kill'), 2);
      scheduler.flush();
      expect(p.terminations).toEqual([2]);
      expect(s.status).toBe('killed');
    });
  });

  it('deleting the owner of an exited PTY with lingering members sweeps them; the exit was told once, when it happened', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectSubscriptions }) => {
      const ownerDeleted$ = scheduler.createHotObservable('-----d', { d: 'ses_a' });
      const p = lingeringProcess(scheduler, 's-x------m|', '---r|');
      const { s, exits } = session(scheduler, p, { ownerDeleted$ });
      void s.start().catch(() => undefined);
      scheduler.schedule(() => {
        expect(s.status).toBe('lingering');
        expect(s.running).toBe(true);
        expect(s.acceptsInput).toBe(false);
      }, 3);
      scheduler.flush();
      expect(p.terminations).toEqual([5]);
      expect(exits).toEqual(['2:lingering']);
      expect(s.status).toBe('killed');
      expect(s.exitCode).toBe(0);
      expectSubscriptions(p.events.subscriptions).toBe('^---------!');
    });
  });
});

describe("PtySession's pipeline end", () => {
  it('leaves a taps subscriber of its own in the shape keeper, as every chunk passes through two', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { s } = session(scheduler, fakeProcess(scheduler, 's-o-x|'));
      void s.start().catch(() => undefined);
      const tapsBefore = handlerSubscriberShapes.instance;
      scheduler.flush();
      expect(s.status).toBe('exited');
      expect(handlerSubscriberShapes.instance).not.toBe(tapsBefore);
      expect(handlerSubscriberShapes.instance?.constructor.name).toBe('HandlerSubscriber');
    });
  });
});

describe('PtySession.dispose', () => {
  /** Disposes a session and checks that `keeper` was renewed by it: what it keeps now, and the session disposed. */
  function disposeRenews<T>(keeper: ShapeKeeper<T>): { s: PtySession; kept: T | undefined } {
    const scheduler = testScheduler();
    const { s } = session(scheduler, fakeProcess(scheduler, 's'));
    const before = keeper.instance;
    s.dispose();
    expect(keeper.instance).not.toBe(before);
    return { s, kept: keeper.instance };
  }

  it('leaves an empty buffer of its own in the shape keeper, so the next PTY finds the ingest path optimized', () => {
    const { s, kept } = disposeRenews(bufferShapes);
    expect(kept).toBeInstanceOf(OutputBuffer);
    expect(kept).not.toBe(s.buffer);
    expect(kept?.totalRawChars).toBe(0);
  });

  it('renews the set of event specimens too, so the next PTY’s start and exit events keep their classes', () => {
    const { kept } = disposeRenews(eventShapes);
    expect(kept?.map((e) => e.kind)).toEqual(['started', 'output', 'output', 'output', 'exit', 'exit', 'members']);
  });

  it('renews the kept match expressions, so code that inlined a match keeps their classes', () => {
    const { kept } = disposeRenews(matchShapes);
    const [unmatched, matched] = kept ?? [];
    expect(unmatched?.constructor).toBe(match(1).constructor);
    expect(matched?.constructor).toBe(match(1).constructor);
  });

  it('leaves a session that never starts and a buffer step in their own shape keeper, holding nothing of this PTY', () => {
    const { s, kept } = disposeRenews(sessionShapes);
    const [keptSession, bufferStep] = kept ?? [];
    expect(keptSession).toBeInstanceOf(PtySession);
    expect(keptSession).not.toBe(s);
    const fresh = keptSession as PtySession;
    expect(fresh.status).toBe('starting');
    expect(fresh.pid).toBeNull();
    expect(fresh.buffer).not.toBe(s.buffer);
    expect(fresh.buffer.totalRawChars).toBe(0);
    expect(bufferStep?.constructor.name).toBe('BufferIngest');
  });
});

describe('PtySession exit notice when its stream ends without an exit event', () => {
  const one = { count: 1, listed: [{ pid: 201, command: 'sleep 300' }] };
  const none = { count: 0, listed: [] };

  /** A PTY that notifies on exit, its stream in `marbles`, its sweep's report after `sweep` (virtual time). */
  async function ending(
    marbles: string,
    sweep: string,
    survivors: typeof one,
    over: Partial<PtyInfo>,
    stopAt?: number,
  ) {
    return (await endingSession(marbles, sweep, survivors, over, stopAt)).exits;
  }

  async function endingSession(
    marbles: string,
    sweep: string,
    survivors: typeof one,
    over: Partial<PtyInfo>,
    stopAt?: number,
  ) {
    const scheduler = testScheduler();
    const exits: string[] = [];
    let session: PtySession | undefined;
    scheduler.run(() => {
      const handle: PtyHandle = {
        pid: 100,
        terminalSid: 101,
        write: async (b) => b.length,
        terminal: () => undefined,
        terminate: () =>
          scheduler.createColdObservable(sweep, { r: { termed: 1, escalated: true, scriptKilled: false, survivors } }),
      };
      const events = scheduler.createColdObservable<PtyEvent>(marbles, {
        s: { kind: 'started', handle },
        o: { kind: 'output', text: 'line\n', bytes: 5, ascii: false },
        // The program's exit, a member of its session left (the sweep's survivor).
        L: { kind: 'exit', exitCode: 143, signal: null, inferredSignal: 'SIGTERM', scriptStderr: '', lingering: one },
      });
      const s = new PtySession(info({ notifyOnExit: true, ...over }), spec, {
        reaper: new Reaper(),
        close$: NEVER,
        ownerDeleted$: NEVER,
        onExit: (x) => exits.push(x.status),
        scheduler,
        spawn: (() => events) as unknown as typeof import('../../src/streams/pty-process.js').ptyProcess$,
      });
      session = s;
      void s.start().catch(() => undefined);
      if (stopAt !== undefined) scheduler.schedule(() => void s.stop('kill').catch(() => undefined), stopAt);
      scheduler.flush();
    });
    // The sweep's report is awaited as a promise: let it settle.
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { exits, s: session as PtySession };
  }

  it('a kill whose sweep leaves a survivor, the program exiting after the report: one notice, naming it', async () => {
    const { exits, s } = await endingSession('s-o 100ms L', '50ms (r|)', one, {}, 10);
    expect(exits).toEqual(['lingering']);
    expect(s.lingering.count).toBe(1);
    expect(s.holdsProcesses).toBe(true);
  });

  it('a timeout, its stream failing, its sweep leaving a survivor: the survivor is recorded and the PTY kept', async () => {
    const { exits, s } = await endingSession('s-o 1100ms #', '1500ms (r|)', one, { timeoutSeconds: 1 });
    expect(exits).toEqual(['timeout']);
    expect(s.lingering).toEqual(one);
    expect(s.holdsProcesses).toBe(true);
  });

  it('a timeout whose sweep empties the session, the stream then cut: one notice', async () => {
    expect(await ending('s-o', '(r|)', none, { timeoutSeconds: 1 })).toEqual(['timeout']);
  });

  it('a timeout, the stream failing while its sweep runs and leaves survivors: one notice', async () => {
    expect(await ending('s-o 1100ms #', '1500ms (r|)', one, { timeoutSeconds: 1 })).toEqual(['timeout']);
  });

  it('a kill, the stream failing while its sweep runs and leaves survivors: one notice', async () => {
    expect(await ending('s-o 100ms #', '500ms (r|)', one, {}, 10)).toEqual(['killed']);
  });
});

describe('PtySession stopped while starting', () => {
  /**
   * A process stream that never emits `started` (the leader not seen yet) and, torn down, sweeps its session as the
   * real one does: the sweep's reports are handed out one per call of `terminate`, each when the test says.
   */
  function startingProcess(reports: TerminationReport[]) {
    const calls: Array<Subject<TerminationReport>> = [];
    let sweep$: Observable<TerminationReport> | undefined;
    // As scriptTermination's: calls share the running sweep; one that left survivors lets the next call sweep again.
    const terminate = (): Observable<TerminationReport> => {
      if (sweep$ === undefined) {
        const report$ = new Subject<TerminationReport>();
        calls.push(report$);
        sweep$ = report$.pipe(
          tap((r) => {
            if (r.survivors.count > 0) sweep$ = undefined;
          }),
          shareReplay(1),
        );
      }
      return sweep$;
    };
    const spawn = ((_spec: unknown, deps: PtyProcessDeps) =>
      new Observable<PtyEvent>(() => () => {
        deps.reaper.track(terminate());
        deps.onTeardownSweep?.(terminate);
      })) as unknown as typeof import('../../src/streams/pty-process.js').ptyProcess$;
    const answer = (k: number) => {
      calls[k]!.next(reports[k]!);
      calls[k]!.complete();
    };
    return { spawn, calls, answer };
  }

  const survivors = (count: number): TerminationReport => ({
    termed: count,
    escalated: true,
    scriptKilled: true,
    survivors: { count, listed: count === 0 ? [] : [{ pid: 4242, command: 'sleep 30' }] },
  });

  function starting(reports: TerminationReport[]) {
    const p = startingProcess(reports);
    const s = new PtySession(info(), spec, {
      reaper: new Reaper(),
      close$: NEVER,
      ownerDeleted$: NEVER,
      onExit: () => undefined,
      spawn: p.spawn,
    });
    return { s, p, started: s.start().catch((e: unknown) => e) };
  }

  it('waits for the sweep its teardown started and reports what survived it, not an empty session', async () => {
    const { s, p, started } = starting([survivors(1)]);
    let outcome: unknown;
    const stopping = s.stop('kill').then((o) => (outcome = o));
    await Promise.resolve();
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    expect(p.calls).toHaveLength(1);
    p.answer(0);
    await stopping;
    expect(outcome).toEqual({ survivors: survivors(1).survivors });
    expect(s.lingering.count).toBe(1);
    expect(s.status).toBe('killed');
    // Killed with survivors, it still holds processes: the registry may not evict it.
    expect(s.holdsProcesses).toBe(true);
    await expect(started).resolves.toMatchObject({ code: 'spawn_failed' });
  });

  it('a second stop sweeps again when the first left survivors, and an empty session clears them', async () => {
    const { s, p } = starting([survivors(1), survivors(0)]);
    const first = s.stop('kill');
    p.answer(0);
    expect(await first).toEqual({ survivors: survivors(1).survivors });
    const second = s.stop('kill');
    expect(p.calls).toHaveLength(2);
    p.answer(1);
    expect(await second).toEqual({ survivors: { count: 0, listed: [] } });
    expect(s.lingering.count).toBe(0);
    expect(s.holdsProcesses).toBe(false);
  });
});
