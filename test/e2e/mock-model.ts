/**
 * A scripted, OpenAI-compatible chat-completions server for driving the real OpenCode in e2e tests.
 *
 * OpenCode talks to it through `@ai-sdk/openai-compatible` (see `opencode-harness.ts`). Each model request is
 * answered by the next step of a script (text, or one or more tool calls); every request body is recorded so a
 * test can assert which tools the model was offered and which tool results / messages it was shown.
 *
 * Requests that offer no tools (OpenCode's title generation, done with the `small_model`) get a short title
 * and do not consume the script.
 *
 * ```ts
 * const model = await MockModel.start({ script: [toolCall('echo_probe', {}), text('done')] });
 * // … run OpenCode against model.baseURL …
 * const req = await model.waitForRequest((r) => r.toolResults.length > 0);
 * expect(req.toolResults[0]?.content).toContain('probe-ok');
 * await model.close();
 * ```
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep } from '../../src/testkit/waits.js';

/** One tool call the scripted model makes. `arguments` is JSON-encoded unless already a string. */
export interface ScriptedToolCall {
  name: string;
  arguments?: unknown;
  /** The call id OpenCode will echo back as `tool_call_id`; default `call_<request>_<i>`. */
  id?: string;
}

/** What the model answers to one request. */
export type ScriptStep =
  | { kind: 'text'; text: string; delayMs?: number }
  | { kind: 'tool_calls'; calls: ScriptedToolCall[]; text?: string; delayMs?: number }
  /** Answer with an HTTP error (e.g. 500) instead of a completion. */
  | { kind: 'http_error'; status: number; message?: string; delayMs?: number };

export const text = (t: string, delayMs?: number): ScriptStep => ({ kind: 'text', text: t, delayMs });
export const toolCall = (name: string, args: unknown = {}, id?: string): ScriptStep => ({
  kind: 'tool_calls',
  calls: [{ name, arguments: args, id }],
});
export const toolCalls = (calls: ScriptedToolCall[], leadingText?: string): ScriptStep => ({
  kind: 'tool_calls',
  calls,
  text: leadingText,
});
export const httpError = (status: number, message?: string): ScriptStep => ({ kind: 'http_error', status, message });

/** A message as OpenCode sends it (OpenAI chat format). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ChatRequestBody {
  model?: string;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  /** 0-based index over all chat requests (title requests included). */
  index: number;
  receivedAt: number;
  body: ChatRequestBody;
  /** No tools offered: OpenCode's title generation (answered without consuming the script). */
  isTitle: boolean;
  /** Names of the offered tools, in the order offered. */
  toolNames: string[];
  /** `role: "tool"` messages: the tool results the model is shown. */
  toolResults: Array<{ tool_call_id: string; content: string }>;
  /** Plain text of every user message (string content or joined text parts). */
  userTexts: string[];
  /** The step this request was answered with (undefined for title requests). */
  answeredWith?: ScriptStep;
  /** True when the script was exhausted and the fallback answered. */
  unscripted: boolean;
}

export type ScriptFn = (request: RecordedRequest, modelRequestIndex: number) => ScriptStep | undefined;

export interface MockModelOptions {
  /** A queue of steps (consumed in order by non-title requests) or a function deciding per request. */
  script?: ScriptStep[] | ScriptFn;
  /** Answer when the queue is exhausted / the function returns undefined. Default: text "(mock: script exhausted)". */
  fallback?: ScriptStep;
  /** Text returned to title requests. Default "Mock title". */
  titleText?: string;
  /** Model id reported by GET /v1/models. Default "mock-model". */
  modelId?: string;
}

const flatten = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
      .join('');
  }
  return content == null ? '' : JSON.stringify(content);
};

const openModels = new Set<MockModel>();

/** Closes every MockModel still open (called by `useHarnessCleanup()`). */
export async function closeAllMockModels(): Promise<void> {
  await Promise.all([...openModels].map((m) => m.close()));
}

export class MockModel {
  readonly requests: RecordedRequest[] = [];
  private queue: ScriptStep[] = [];
  private fn: ScriptFn | undefined;
  private modelRequestCount = 0;
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    private readonly opts: MockModelOptions,
  ) {
    if (Array.isArray(opts.script)) this.queue = [...opts.script];
    else this.fn = opts.script;
  }

  static async start(opts: MockModelOptions = {}): Promise<MockModel> {
    const server = http.createServer();
    const model = new MockModel(server, opts);
    openModels.add(model);
    server.on('request', (req, res) => model.handle(req, res));
    server.on('connection', (s) => {
      model.sockets.add(s);
      s.on('close', () => model.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return model;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Base URL for `options.baseURL` of the provider, e.g. `http://127.0.0.1:PORT/v1`. */
  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Requests that offered tools (i.e. real model turns, not title generation). */
  get modelRequests(): RecordedRequest[] {
    return this.requests.filter((r) => !r.isTitle);
  }

  get titleRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.isTitle);
  }

  /** Steps still queued. */
  get pending(): number {
    return this.queue.length;
  }

  /** Append steps to the queue (switches from a script function back to queue mode). */
  enqueue(...steps: ScriptStep[]): void {
    this.fn = undefined;
    this.queue.push(...steps);
  }

  /** Replace the script with a function. */
  setScript(fn: ScriptFn): void {
    this.fn = fn;
    this.queue = [];
  }

  /** Every tool result the model was shown, across requests, de-duplicated by call id (first seen wins). */
  allToolResults(): Array<{ tool_call_id: string; content: string }> {
    const seen = new Map<string, { tool_call_id: string; content: string }>();
    for (const r of this.requests)
      for (const t of r.toolResults) if (!seen.has(t.tool_call_id)) seen.set(t.tool_call_id, t);
    return [...seen.values()];
  }

  /** The tool result for one call id, if the model has been shown it. */
  toolResult(callId: string): string | undefined {
    return this.allToolResults().find((t) => t.tool_call_id === callId)?.content;
  }

  /**
   * Resolves with the first recorded request (already recorded or future) matching `pred`.
   * Rejects after `timeoutMs` with a message listing what was received.
   */
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs = 30_000): Promise<RecordedRequest> {
    const found = this.requests.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = this.requests.find(pred);
        if (hit) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `MockModel.waitForRequest timed out after ${timeoutMs} ms; got ${this.requests.length} requests: ` +
              JSON.stringify(
                this.requests.map((r) => ({
                  i: r.index,
                  title: r.isTitle,
                  tools: r.toolNames.length,
                  results: r.toolResults.length,
                })),
              ),
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Waits until `n` model (non-title) requests have arrived. */
  waitForModelRequests(n: number, timeoutMs = 30_000): Promise<RecordedRequest> {
    return this.waitForRequest(() => this.modelRequests.length >= n, timeoutMs).then(() => this.modelRequests[n - 1]!);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    openModels.delete(this);
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextStep(rec: RecordedRequest): { step: ScriptStep; unscripted: boolean } {
    const idx = this.modelRequestCount++;
    const step = this.fn ? this.fn(rec, idx) : this.queue.shift();
    if (step) return { step, unscripted: false };
    return { step: this.opts.fallback ?? text('(mock: script exhausted)'), unscripted: true };
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      try {
        if (req.method === 'GET' && url.replace(/\?.*$/, '').endsWith('/models')) {
          const id = this.opts.modelId ?? 'mock-model';
          return json(res, 200, { object: 'list', data: [{ id, object: 'model', created: 0, owned_by: 'mock' }] });
        }
        if (req.method === 'POST' && url.replace(/\?.*$/, '').endsWith('/chat/completions')) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as ChatRequestBody;
          return void this.answer(body, res);
        }
        json(res, 404, { error: { message: `mock: no route ${req.method} ${url}` } });
      } catch (e) {
        json(res, 500, { error: { message: `mock: ${(e as Error).message}` } });
      }
    });
  }

  private async answer(body: ChatRequestBody, res: http.ServerResponse): Promise<void> {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const toolNames = (body.tools ?? []).map((t) => t.function?.name).filter((n): n is string => !!n);
    const rec: RecordedRequest = {
      index: this.requests.length,
      receivedAt: Date.now(),
      body,
      isTitle: toolNames.length === 0,
      toolNames,
      toolResults: messages
        .filter((m) => m.role === 'tool')
        .map((m) => ({ tool_call_id: String(m.tool_call_id ?? ''), content: flatten(m.content) })),
      userTexts: messages.filter((m) => m.role === 'user').map((m) => flatten(m.content)),
      unscripted: false,
    };
    let step: ScriptStep;
    if (rec.isTitle) step = text(this.opts.titleText ?? 'Mock title');
    else {
      const next = this.nextStep(rec);
      step = next.step;
      rec.unscripted = next.unscripted;
      rec.answeredWith = step;
    }
    this.requests.push(rec);
    for (const w of [...this.waiters]) w();

    if (step.delayMs) await sleep(step.delayMs);
    if (res.destroyed) return;
    if (step.kind === 'http_error') {
      return json(res, step.status, {
        error: { message: step.message ?? `mock error ${step.status}`, type: 'mock_error' },
      });
    }

    const id = `chatcmpl-mock-${rec.index}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'mock-model';
    const content = step.kind === 'text' ? step.text : (step.text ?? '');
    const toolCallsOut =
      step.kind === 'tool_calls'
        ? step.calls.map((c, i) => ({
            id: c.id ?? `call_${rec.index}_${i}`,
            type: 'function' as const,
            function: {
              name: c.name,
              arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
            },
          }))
        : [];
    const finish = toolCallsOut.length > 0 ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

    if (!body.stream) {
      return json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: content || null,
              ...(toolCallsOut.length ? { tool_calls: toolCallsOut } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (
      delta: Record<string, unknown>,
      finishReason: string | null,
      extra: Record<string, unknown> = {},
    ): void => {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
      );
    };
    send({ role: 'assistant', content: '' }, null);
    if (content) send({ content }, null);
    for (const [i, c] of toolCallsOut.entries()) send({ tool_calls: [{ index: i, ...c }] }, null);
    send({}, finish, { usage });
    res.end('data: [DONE]\n\n');
  }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
