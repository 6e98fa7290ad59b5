import { OutputBuffer } from '../../src/buffer/output-buffer.js';
import { intoBuffer } from '../../src/operators/into-buffer.js';
import { testScheduler } from '../support/marbles.js';

type Output = {
  readonly type: 'output';
  readonly text: string;
  readonly source?: Uint8Array;
  readonly ascii?: boolean;
};
type Event = Output | { readonly type: 'exit'; readonly code: number };

const events: Record<string, Event> = {
  a: { type: 'output', text: 'hello ' },
  b: { type: 'output', text: 'world\n' },
  c: { type: 'output', text: 'bye\n' },
  e: { type: 'output', text: '' },
  x: { type: 'exit', code: 0 },
};

const pickOutput = (event: Event): Output | undefined => (event.type === 'output' ? event : undefined);

/** Records appends so the test can see exactly what reached the sink, and when. */
function recordingSink() {
  const appended: string[] = [];
  return {
    appended,
    append: (text: string) => void appended.push(text),
    appendAscii: (bytes: Uint8Array) => void appended.push(`ascii:${Buffer.from(bytes).toString('latin1')}`),
  };
}

describe('intoBuffer', () => {
  it('appends each output text and passes every event through unchanged', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const buffer = new OutputBuffer();
      const source = cold('-a-b-x|', events);
      expectObservable(source.pipe(intoBuffer(buffer, pickOutput))).toBe('-a-b-x|', events);
      expectSubscriptions(source.subscriptions).toBe('^-----!');
      scheduler.flush();
      expect(buffer.tail(5)).toEqual([{ lineNumber: 1, text: 'hello world' }]);
    });
  });

  it('hands the sink the bytes each text was decoded from, where the event has them', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const appended: Array<[string, Uint8Array | undefined]> = [];
      const sink = {
        append: (text: string, bytes?: Uint8Array) => void appended.push([text, bytes]),
        appendAscii: () => {
          throw new Error('not ASCII');
        },
      };
      const withBytes = { ...events, a: { type: 'output' as const, text: 'hi', source: Buffer.from('hi') } };
      const source = cold('-a-b|', withBytes);
      expectObservable(source.pipe(intoBuffer(sink, pickOutput))).toBe('-a-b|', withBytes);
      expectSubscriptions(source.subscriptions).toBe('^---!');
      scheduler.flush();
      expect(appended).toEqual([
        ['hi', Buffer.from('hi')],
        ['world\n', undefined],
      ]);
    });
  });

  it('hands an ASCII chunk over as its bytes, without ever asking for its text', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const sink = recordingSink();
      const ascii = (bytes: string): Output => ({
        type: 'output',
        get text(): string {
          throw new Error('the text of an ASCII chunk was asked for');
        },
        source: Buffer.from(bytes, 'latin1'),
        ascii: true,
      });
      const withAscii = { ...events, p: ascii('ok\n'), q: ascii('') };
      const source = cold('-a-p-q-c|', withAscii);
      expectObservable(source.pipe(intoBuffer(sink, pickOutput))).toBe('-a-p-q-c|', withAscii);
      expectSubscriptions(source.subscriptions).toBe('^-------!');
      scheduler.flush();
      // The empty ASCII chunk is skipped like empty text.
      expect(sink.appended).toEqual(['hello ', 'ascii:ok\n', 'bye\n']);
    });
  });

  it('appends at the moment each event passes, and skips events without output or with empty output', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const sink = recordingSink();
      const seen: string[][] = [];
      const source = cold('-a-e-x-c|', events);
      const result = source.pipe(intoBuffer(sink, pickOutput));
      // Each event must find its own text already appended, and nothing later.
      result.subscribe(() => seen.push([...sink.appended]));
      expectSubscriptions(source.subscriptions).toBe('^-------!');
      scheduler.flush();
      expect(sink.appended).toEqual(['hello ', 'bye\n']);
      expect(seen).toEqual([['hello '], ['hello '], ['hello '], ['hello ', 'bye\n']]);
    });
  });

  it('propagates unsubscription of the result to the source, appending nothing after it', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const sink = recordingSink();
      const source = hot('-a-b-c-x-|', events);
      expectObservable(source.pipe(intoBuffer(sink, pickOutput)), '^---!').toBe('-a-b-', events);
      expectSubscriptions(source.subscriptions).toBe('^---!');
      scheduler.flush();
      expect(sink.appended).toEqual(['hello ', 'world\n']);
    });
  });

  it('passes an error through after appending what came before it', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const sink = recordingSink();
      const failure = new Error('pty read failed');
      const source = cold('-a-#', events, failure);
      expectObservable(source.pipe(intoBuffer(sink, pickOutput))).toBe('-a-#', events, failure);
      expectSubscriptions(source.subscriptions).toBe('^--!');
      scheduler.flush();
      expect(sink.appended).toEqual(['hello ']);
    });
  });

  it('errors, and unsubscribes from the source, when the sink throws', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('sink full');
      const sink = {
        append: (text: string) => {
          if (text === 'world\n') throw failure;
        },
        appendAscii: () => undefined,
      };
      const source = cold('-a-b-c|', events);
      expectObservable(source.pipe(intoBuffer(sink, pickOutput))).toBe('-a-#', events, failure);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });
});
