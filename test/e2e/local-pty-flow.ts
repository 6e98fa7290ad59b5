/**
 * Scripted model "flows" for the local-pty e2e tests: each step sees the request OpenCode sent (with every
 * tool result so far) and decides the next answer, so a step can use the PTY id the previous spawn returned,
 * or read again until the program's answer is there.
 */
import fs from 'node:fs';
import type { MockModel, RecordedRequest, ScriptStep } from './mock-model.js';
import type { EventRecorder, OpencodeEvent } from './opencode-harness.js';

/**
 * The answer to one request: a step, `{repeat}` (answer, and stay on this step for the next request), or
 * `'next'` (this step is done: the next step answers this same request).
 */
export type FlowStep = (req: RecordedRequest) => ScriptStep | { repeat: ScriptStep } | 'next';

/** Installs `steps` as the model's script; requests after the last step get the mock's fallback text. */
export function runFlow(
  model: MockModel,
  steps: FlowStep[],
): { readonly done: boolean; readonly requests: RecordedRequest[] } {
  let i = 0;
  const requests: RecordedRequest[] = [];
  model.setScript((req) => {
    for (; i < steps.length; i++) {
      const out = steps[i]!(req);
      if (out === 'next') continue;
      requests.push(req);
      if ('repeat' in out) return out.repeat;
      i++;
      return out;
    }
    return undefined;
  });
  return {
    get done() {
      return i >= steps.length;
    },
    requests,
  };
}

/**
 * A step that makes the tool call `call(n)` (n = 0, 1, …; each with its own call id) until `done` holds for
 * the result of the last one (or `max` calls were made), then hands over to the next step. Repeats wait
 * `delayMs` before answering, so a program has time to print.
 */
export function until(
  call: (n: number) => ScriptStep,
  done: (req: RecordedRequest, lastCallId: string) => boolean,
  max = 20,
  delayMs = 150,
): FlowStep {
  let n = 0;
  let lastId = '';
  return (req) => {
    if (n > 0 && (done(req, lastId) || n >= max)) return 'next';
    const step = call(n);
    if (step.kind !== 'tool_calls' || !step.calls[0]?.id) throw new Error('until() needs a tool call with an id');
    lastId = step.calls[0].id;
    n++;
    return { repeat: n > 1 ? { ...step, delayMs } : step };
  };
}

/** The tool result for `callId` in this request, parsed as the JSON envelope the plugin returns. */
export function result<T = Record<string, unknown>>(req: RecordedRequest, callId: string): T {
  const found = req.toolResults.find((t) => t.tool_call_id === callId);
  if (!found)
    throw new Error(
      `no tool result for ${callId} in request ${req.index} (results: ${req.toolResults.map((t) => t.tool_call_id).join(', ')})`,
    );
  try {
    return JSON.parse(found.content) as T;
  } catch {
    throw new Error(`tool result for ${callId} is not JSON: ${found.content}`);
  }
}

/** The raw tool result text for `callId`, if the request carries it. */
export function rawResult(req: RecordedRequest, callId: string): string | undefined {
  return req.toolResults.find((t) => t.tool_call_id === callId)?.content;
}

export interface ReadLine {
  line: number;
  text: string;
}

/** The text lines of a pty_read result. */
export function readText(res: { lines?: ReadLine[] }): string[] {
  return (res.lines ?? []).map((l) => l.text);
}

/** The system prompt(s) of a request. */
export function systemText(req: RecordedRequest): string {
  return req.body.messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** Every `pty.exit` envelope in the request's user messages. */
export function exitEnvelopes(req: RecordedRequest): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const t of req.userTexts) {
    // the envelope is flat (no nested objects), so it ends at the first '}'
    for (const m of t.matchAll(/\{"type":"pty\.exit"[^{}]*\}/g)) {
      try {
        out.push(JSON.parse(m[0]) as Record<string, unknown>);
      } catch {
        // not a whole envelope
      }
    }
  }
  return out;
}

/** Every `pty.match` envelope in the request's user messages (flat, like pty.exit). */
export function matchEnvelopes(req: RecordedRequest): Array<Record<string, unknown>> {
  return req.userTexts.flatMap((t) =>
    [...t.matchAll(/\{"type":"pty\.match"[^{}]*\}/g)].flatMap((m) => {
      try {
        return [JSON.parse(m[0]) as Record<string, unknown>];
      } catch {
        return [];
      }
    }),
  );
}

/** The next event of `type` matching `pred` that arrives at index `from` or later of the recorder. */
export function eventAfter<T extends OpencodeEvent['type']>(
  events: EventRecorder,
  from: number,
  type: T,
  pred: (e: Extract<OpencodeEvent, { type: T }>) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<Extract<OpencodeEvent, { type: T }>> {
  return events.waitFor<Extract<OpencodeEvent, { type: T }>>(
    (e) => e.type === type && events.events.indexOf(e) >= from && pred(e as Extract<OpencodeEvent, { type: T }>),
    timeoutMs,
    `${type} (after event #${from})`,
  );
}

export const realpath = (p: string): string => fs.realpathSync(p);
