/**
 * The built plugin (dist/index.js) in the real OpenCode 1.18.33 (`opencode serve` + SDK v2), driven by a
 * scripted mock model. Every assertion is on what really happened: the tool results the model was shown,
 * the permission events the user saw, the requests the model received, and the processes in /proc.
 *
 * One `opencode serve` per describe (sessions keep the tests apart); each describe's last test stops it.
 * Loading both ways and the JSON schemas the model is offered: local-pty-loading.e2e.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MessageUpdatedEvent } from '../../src/hosts/host-events.js';
import { MockModel, text, toolCall, toolCalls, type RecordedRequest } from './mock-model.js';
import {
  eventAfter,
  exitEnvelopes,
  matchEnvelopes,
  rawResult,
  readText,
  realpath,
  result,
  runFlow,
  systemText,
  until,
  type FlowStep,
  type ReadLine,
} from './local-pty-flow.js';
import {
  builtPluginAvailable,
  localPtyViaConfigKey,
  MODEL_ID,
  OpencodeHarness,
  PROVIDER_ID,
  timed,
  useHarnessCleanup,
  type ServeHandle,
} from './opencode-harness.js';
import {
  childrenOf,
  isAlive,
  processesWithToken,
  ptyProcesses,
  survivors,
  waitUntilGone,
  type ProcRef,
  type PtyProcesses,
} from '../../src/testkit/processes.js';
import { sleep } from '../../src/testkit/waits.js';

useHarnessCleanup();

const describeBuilt = builtPluginAvailable() ? describe : describe.skip;
const quiet = !!process.env.OPENCODE_E2E_QUIET;
const show = (label: string, value: unknown): void => {
  if (!quiet) process.stdout.write(`[e2e observed] ${label}: ${JSON.stringify(value)}\n`);
};

/** The plugin's close bound (CLOSE_TIMEOUT_MS in src/limits.ts). */
const CLOSE_BOUND_MS = 27_000;
/** A command that ignores SIGHUP and SIGTERM (and so do its `sleep`s: ignored signals survive exec). */
const STUBBORN = ['-c', 'trap "" HUP TERM; while :; do sleep 1; done'];

interface Spawned {
  id: string;
  pid: number;
  status: string;
  command: string;
  args: string[];
  workdir: string;
  exitCode: number | null;
}

interface Listed {
  ptys: Spawned[];
}

const spawnCall = (id: string, args: Record<string, unknown>) =>
  toolCall('pty_spawn', { description: `e2e ${id}`, ...args }, id);

// The session's agent and model, both not the defaults, so a woken turn that lost them shows: the default
// agent `build` is pinned to `mock-model`; `e2e-agent` defaults to `mock-model-3`; sessions run on `mock-model-2`.
const AGENT = 'e2e-agent';
const AGENT_MARKER = 'E2E-AGENT-PROMPT-MARKER';
const SESSION_MODEL = { providerID: PROVIDER_ID, modelID: 'mock-model-2' };

describeBuilt('local-pty in the real OpenCode (default permissions)', () => {
  let model: MockModel;
  let h: OpencodeHarness;
  let server: ServeHandle;
  let project: string;
  /** Every PTY snapshot taken, so afterAll can say if one outlived its test. */
  const seen: PtyProcesses[] = [];

  beforeAll(async () => {
    model = await MockModel.start();
    h = await OpencodeHarness.create({
      model,
      label: 'local-pty',
      ...localPtyViaConfigKey(),
      extraModels: ['mock-model-2', 'mock-model-3'],
      extraConfig: {
        agent: {
          build: { model: `${PROVIDER_ID}/${MODEL_ID}` },
          [AGENT]: {
            mode: 'primary',
            description: 'e2e agent',
            model: `${PROVIDER_ID}/mock-model-3`,
            prompt: `You are ${AGENT_MARKER}.`,
          },
        },
      },
    });
    project = realpath(h.projectDir);
    server = await timed(h.label, 'serve() until ready', () => h.serve());
  }, 120_000);

  afterAll(async () => {
    show('PTY processes alive at the end of the describe', survivors(seen));
    await h?.dispose();
    await model?.close();
  });

  const newSession = async (title: string): Promise<string> =>
    (await server.client.session.create({ title }, { throwOnError: true })).data.id;
  const prompt = (
    sessionID: string,
    words: string,
    extra: { agent?: string; model?: { providerID: string; modelID: string } } = {},
  ) =>
    timed(h.label, `prompt "${words}"`, () =>
      server.client.session.prompt(
        { sessionID, parts: [{ type: 'text', text: words }], ...extra },
        { throwOnError: true },
      ),
    );
  const snapshot = (pid: number): PtyProcesses => {
    const p = ptyProcesses(pid);
    seen.push(p);
    return p;
  };

  it('the whole loop: spawn a python3 REPL, write, read the answer, list, kill; the processes are gone', async () => {
    const session = await newSession('loop');
    let id = '';
    let atSpawn: PtyProcesses | undefined;
    let aliveAtKillResult: ProcRef[] | undefined;
    const flow = runFlow(model, [
      () => spawnCall('call_loop_spawn', { command: 'python3', args: ['-q'], title: 'py' }),
      (req) => {
        // the model got the spawn result: the REPL is running right now
        const spawned = result<Spawned>(req, 'call_loop_spawn');
        id = spawned.id;
        atSpawn = snapshot(spawned.pid);
        return toolCall('pty_write', { id, data: 'print("pty" + "-ok", 6 * 7)\\n' }, 'call_loop_write');
      },
      until(
        (n) => toolCall('pty_read', { id, tail: true }, `call_loop_read_${n}`),
        (req, last) => readText(result(req, last)).includes('>>> pty-ok 42'),
      ),
      () => toolCall('pty_list', {}, 'call_loop_list'),
      () => toolCall('pty_kill', { id }, 'call_loop_kill'),
      () => {
        aliveAtKillResult = survivors([atSpawn!]);
        return text('the REPL answered 42');
      },
    ]);

    await prompt(session, 'start python and compute 6*7');
    expect(flow.done).toBe(true);
    const last = flow.requests.at(-1)!;

    const spawned = result<Spawned>(last, 'call_loop_spawn');
    show('pty_spawn result', spawned);
    expect(spawned).toMatchObject({
      id: expect.stringMatching(/^pty_[0-9a-f]{8}$/),
      status: 'running',
      command: 'python3',
      args: ['-q'],
      workdir: project,
      title: 'py',
    });
    expect(atSpawn!.script.comm).toBe('script');
    expect(atSpawn!.members[0]).toMatchObject({ comm: expect.stringMatching(/^python3/), cmdline: 'python3 -q' });

    expect(result(last, 'call_loop_write')).toMatchObject({
      id: spawned.id,
      bytesWritten: 'print("pty" + "-ok", 6 * 7)\n'.length,
      status: 'running',
    });

    const reads = last.toolResults.filter((t) => t.tool_call_id.startsWith('call_loop_read_'));
    const answer = result<{ lines: ReadLine[]; status: string }>(last, reads.at(-1)!.tool_call_id);
    show(`pty_read (after ${reads.length} read(s))`, answer);
    // the REPL's answer after its prompt (the terminal does not echo the input): the last line is the next prompt
    expect(readText(answer)).toEqual(['>>> pty-ok 42', '>>> ']);
    expect(answer.status).toBe('running');

    const listed = result<Listed>(last, 'call_loop_list');
    expect(listed.ptys).toEqual([
      expect.objectContaining({ id: spawned.id, status: 'running', command: 'python3', pid: spawned.pid }),
    ]);

    const killed = result<Spawned>(last, 'call_loop_kill');
    show('pty_kill result', killed);
    expect(killed).toMatchObject({ id: spawned.id, status: 'killed', removed: false });
    // pty_kill answers once the terminal's session is empty: nothing was alive when the model got the answer
    expect(aliveAtKillResult).toEqual([]);
    expect(survivors([atSpawn!])).toEqual([]);
    expect(last.answeredWith).toEqual(text('the REPL answered 42'));
  });

  it('full-screen programs: edit a file in vim by named keys, read less by its screen', async () => {
    interface ScreenRead {
      status: string;
      screen?: { rows: string[]; alternateScreen: boolean; cursor: { row: number; col: number } };
      screenNote?: string;
    }
    const session = await newSession('screen');
    fs.writeFileSync(path.join(project, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    fs.writeFileSync(
      path.join(project, 'long.txt'),
      `${Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n')}\n`,
    );
    let vim = '';
    let less = '';
    const screenOf = (req: RecordedRequest, id: string) => result<ScreenRead>(req, id).screen;
    const flow = runFlow(model, [
      () =>
        spawnCall('call_vim_spawn', { command: 'vim', args: ['-u', 'NONE', '-N', 'notes.txt'], rows: 12, cols: 60 }),
      (req) => {
        vim = result<Spawned>(req, 'call_vim_spawn').id;
        return 'next';
      },
      until(
        (n) => toolCall('pty_read', { id: vim, screen: true }, `call_vim_open_${n}`),
        (req, last) => screenOf(req, last)?.rows[0] === 'alpha',
      ),
      () =>
        toolCall(
          'pty_write',
          {
            id: vim,
            input: [{ key: 'Down' }, { text: 'dd' }, { key: 'Home' }, { text: 'iINSERTED ' }, { key: 'Esc' }],
          },
          'call_vim_edit',
        ),
      // A plain read: vim is on the alternate screen, so the screen comes by itself.
      until(
        (n) => toolCall('pty_read', { id: vim, tail: true, limit: 5 }, `call_vim_edited_${n}`),
        (req, last) => {
          const rows = screenOf(req, last)?.rows ?? [];
          return rows[1] === 'INSERTED gamma' && !rows[11]?.includes('INSERT');
        },
      ),
      () => toolCall('pty_write', { id: vim, input: [{ text: ':wq' }, { key: 'Enter' }] }, 'call_vim_save'),
      until(
        (n) => toolCall('pty_read', { id: vim, tail: true, limit: 5 }, `call_vim_done_${n}`),
        (req, last) => result<ScreenRead>(req, last).status === 'exited',
      ),
      () => spawnCall('call_less_spawn', { command: 'less', args: ['long.txt'], rows: 10, cols: 40 }),
      (req) => {
        less = result<Spawned>(req, 'call_less_spawn').id;
        return 'next';
      },
      until(
        (n) => toolCall('pty_read', { id: less, screen: true }, `call_less_open_${n}`),
        (req, last) => screenOf(req, last)?.rows[0] === 'line 1',
      ),
      () => toolCall('pty_write', { id: less, input: [{ key: 'PageDown' }] }, 'call_less_page'),
      until(
        (n) => toolCall('pty_read', { id: less, screen: true }, `call_less_paged_${n}`),
        (req, last) => screenOf(req, last)?.rows[0] === 'line 10',
      ),
      () => toolCall('pty_write', { id: less, input: [{ text: 'q' }] }, 'call_less_quit'),
      () => text('edited and paged'),
    ]);

    await prompt(session, 'edit notes.txt in vim, then page through long.txt in less');
    expect(flow.done).toBe(true);
    const last = flow.requests.at(-1)!;
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('alpha\nINSERTED gamma\n');
    expect(result(last, 'call_vim_edit')).toMatchObject({
      id: vim,
      bytesWritten: '\x1bOBdd\x1bOHiINSERTED \x1b'.length,
      status: 'running',
    });
    const edited = last.toolResults.filter((t) => t.tool_call_id.startsWith('call_vim_edited_')).at(-1)!;
    const editedRead = result<ScreenRead>(last, edited.tool_call_id);
    show('vim screen after the edit (plain pty_read)', editedRead.screen);
    expect(editedRead.screen).toMatchObject({ alternateScreen: true, cursor: { row: 1 } });
    expect(editedRead.screenNote).toMatch(/alternate screen/);
    const paged = last.toolResults.filter((t) => t.tool_call_id.startsWith('call_less_paged_')).at(-1)!;
    const pagedScreen = result<ScreenRead>(last, paged.tool_call_id).screen!;
    show('less screen after PageDown', pagedScreen);
    expect(pagedScreen.rows.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `line ${i + 10}`));
    expect(pagedScreen.alternateScreen).toBe(true);
    expect(last.answeredWith).toEqual(text('edited and paged'));
  });

  it('workdir: inside the project the program runs there; outside it asks external_directory first', async () => {
    const inside = path.join(h.projectDir, 'sub', 'dir');
    fs.mkdirSync(inside, { recursive: true });
    const outside = path.join(h.root, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    let currentId = '';
    // remember the spawned id, then read until the program has ended and printed
    const remember =
      (callId: string): FlowStep =>
      (req) => {
        currentId = result<Spawned>(req, callId).id;
        return 'next';
      };
    const readPwd = (prefix: string): FlowStep =>
      until(
        (n) => toolCall('pty_read', { id: currentId }, `${prefix}_read_${n}`),
        (req, last) =>
          result<{ status: string }>(req, last).status !== 'running' && readText(result(req, last)).length > 0,
      );

    // inside: a relative workdir, resolved against the project
    const s1 = await newSession('workdir inside');
    const f1 = runFlow(model, [
      () => spawnCall('call_wd_in', { command: 'pwd', workdir: 'sub/dir' }),
      remember('call_wd_in'),
      readPwd('call_wd_in'),
      () => text('ran inside'),
    ]);
    const asked0 = server.events.ofType('permission.asked').length;
    await prompt(s1, 'print the directory');
    expect(f1.done).toBe(true);
    const inReq = f1.requests.at(-1)!;
    expect(result<Spawned>(inReq, 'call_wd_in')).toMatchObject({ command: 'pwd', workdir: realpath(inside) });
    const inRead = result<{ lines: ReadLine[]; exitCode: number }>(inReq, inReq.toolResults.at(-1)!.tool_call_id);
    show('pwd in sub/dir', inRead);
    expect(readText(inRead)).toEqual([realpath(inside)]);
    expect(inRead.exitCode).toBe(0);
    expect(server.events.ofType('permission.asked').length).toBe(asked0); // nothing to ask inside the project

    // outside: absolute path outside the project → external_directory is asked (OpenCode's default is "ask")
    const s2 = await newSession('workdir outside');
    const f2 = runFlow(model, [
      () => spawnCall('call_wd_out', { command: 'pwd', workdir: outside }),
      remember('call_wd_out'),
      readPwd('call_wd_out'),
      () => text('ran outside'),
    ]);
    const from = server.events.events.length;
    await server.client.session.promptAsync(
      { sessionID: s2, parts: [{ type: 'text', text: 'print the outside directory' }] },
      { throwOnError: true },
    );
    const asked = await eventAfter(server.events, from, 'permission.asked', (e) => e.properties.sessionID === s2);
    show('permission.asked (external_directory)', asked.properties);
    expect(asked.properties).toMatchObject({
      permission: 'external_directory',
      patterns: [`${realpath(outside)}/*`],
      always: [],
      metadata: { directory: realpath(outside), command: 'pwd' },
      tool: { callID: 'call_wd_out' },
    });
    // nothing runs while the user has not answered
    expect(f2.requests).toHaveLength(1);
    await server.client.permission.reply({ requestID: asked.properties.id, reply: 'once' }, { throwOnError: true });
    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === s2);
    expect(f2.done).toBe(true);
    const outReq = f2.requests.at(-1)!;
    expect(readText(result(outReq, outReq.toolResults.at(-1)!.tool_call_id))).toEqual([realpath(outside)]);
    // bash is "allow" by default: the external directory was the only question
    expect(server.events.ofType('permission.asked').filter((e) => e.properties.sessionID === s2)).toHaveLength(1);
  });

  it('exit notification: an idle session is woken with the pty.exit envelope, keeping its agent and model', async () => {
    const session = await newSession('notify idle');
    const flow = runFlow(model, [
      () =>
        spawnCall('call_ni_spawn', {
          command: 'sh',
          args: ['-c', 'sleep 2; echo notify-bye; exit 3'],
          notifyOnExit: true,
          description: 'short job for the idle wake',
        }),
      () => text('spawned; I will be told when it ends'),
      // the woken turn
      () => text('noted the exit'),
    ]);
    const from = server.events.events.length;
    const done = await prompt(session, 'run the short job', { agent: AGENT, model: SESSION_MODEL });
    expect(done.data.info).toMatchObject({ agent: AGENT, modelID: SESSION_MODEL.modelID });
    const idle = await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    const idleAt = server.events.receivedAt[server.events.events.indexOf(idle)]!;
    const first = flow.requests[0]!;
    expect(first.body.model).toBe(SESSION_MODEL.modelID);
    expect(systemText(first)).toContain(AGENT_MARKER);
    const spawned = result<Spawned>(flow.requests[1]!, 'call_ni_spawn');

    const woken = await timed(h.label, 'wait for the woken request', () =>
      model.waitForRequest((r) => exitEnvelopes(r).length > 0, 20_000),
    );
    await eventAfter(
      server.events,
      server.events.events.indexOf(idle) + 1,
      'session.idle',
      (e) => e.properties.sessionID === session,
    );
    show('woken request: model, user texts', { model: woken.body.model, userTexts: woken.userTexts.slice(-2) });
    expect(woken.receivedAt).toBeGreaterThan(idleAt); // after the turn had ended
    const [envelope, ...more] = exitEnvelopes(woken);
    expect(more).toEqual([]);
    expect(envelope).toEqual({
      type: 'pty.exit',
      id: spawned.id,
      description: 'short job for the idle wake',
      exitCode: 3,
      exitSignal: null,
      exitSignalInferred: false,
      status: 'exited',
      timeoutSeconds: null,
      timedOut: false,
      lingering: null,
      outputLines: expect.any(Number),
      lastLine: 'notify-bye',
    });
    // the same agent (its prompt) and the same model as the session had, neither the defaults nor the agent's own
    expect(woken.body.model).toBe(SESSION_MODEL.modelID);
    expect(systemText(woken)).toContain(AGENT_MARKER);
    expect(woken.answeredWith).toEqual(text('noted the exit'));
    expect(flow.done).toBe(true);

    const { data: messages } = await server.client.session.messages({ sessionID: session }, { throwOnError: true });
    const users = messages.filter((m) => m.info.role === 'user');
    const wake = users.at(-1)!;
    show('the wake message as stored', {
      info: wake.info,
      parts: wake.parts.map((p) => ({ type: p.type, synthetic: (p as { synthetic?: boolean }).synthetic })),
    });
    expect(wake.info).toMatchObject({ agent: AGENT, model: SESSION_MODEL });
    const replies = messages.filter((m) => m.info.role === 'assistant');
    expect(replies.at(-1)!.info).toMatchObject({
      agent: AGENT,
      modelID: SESSION_MODEL.modelID,
      providerID: PROVIDER_ID,
    });
    // what the plugin's event hook receives for the prompt: a user message.updated with that agent and model, in
    // the shape SessionActivity reads (its main source: after a long turn the user message is not among the newest)
    const userEvents = server.events.events
      .slice(from)
      .filter(
        (e) =>
          e.type === 'message.updated' &&
          (e.properties as { info?: { role?: string; sessionID?: string } }).info?.role === 'user',
      )
      .filter((e) => (e.properties as { info: { sessionID?: string } }).info.sessionID === session);
    show('user message.updated events', userEvents.length);
    const parsedUser = MessageUpdatedEvent.safeParse(userEvents[0]);
    expect(parsedUser.success && parsedUser.data.properties.info).toMatchObject({
      role: 'user',
      sessionID: session,
      agent: AGENT,
      model: SESSION_MODEL,
    });
    // the fallback finds that agent and model with `messages({limit})`: OpenCode answers with the NEWEST messages
    const { data: newest } = await server.client.session.messages(
      { sessionID: session, limit: 2 },
      { throwOnError: true },
    );
    expect(newest.map((m) => m.info.id)).toEqual(messages.slice(-2).map((m) => m.info.id));
    // delivered once: no second wake
    await sleep(1_000);
    expect(model.requests.filter((r) => exitEnvelopes(r).some((e) => e.id === spawned.id))).toHaveLength(1);
  });

  it('exit notification: a busy session gets the envelope at its next step, losing nothing and keeping its model', async () => {
    const session = await newSession('notify busy');
    const flow = runFlow(model, [
      () =>
        spawnCall('call_nb_spawn', {
          command: 'sh',
          args: ['-c', 'sleep 1; echo busy-bye'],
          notifyOnExit: true,
          description: 'job ending mid-turn',
        }),
      // the model "thinks" for 3.5 s: the PTY exits meanwhile, while the session is busy
      () => ({ ...toolCall('pty_list', {}, 'call_nb_list'), delayMs: 3_500 }),
      () => text('turn over'),
    ]);
    await prompt(session, 'run the job and keep working', { agent: AGENT, model: SESSION_MODEL });
    expect(flow.done).toBe(true);
    expect(flow.requests).toHaveLength(3);
    const [, second, third] = flow.requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    const spawned = result<Spawned>(second, 'call_nb_spawn');
    show('busy: user texts of the step after the exit', third.userTexts);
    // the step after the exit: the list result AND the envelope, in the same turn
    expect(exitEnvelopes(second)).toEqual([]);
    expect(exitEnvelopes(third)).toEqual([
      expect.objectContaining({
        type: 'pty.exit',
        id: spawned.id,
        status: 'exited',
        exitCode: 0,
        lastLine: 'busy-bye',
      }),
    ]);
    expect(result<Listed>(third, 'call_nb_list').ptys).toEqual([expect.objectContaining({ id: spawned.id })]);
    // nothing lost: the conversation still holds the first prompt and every tool result
    expect(third.userTexts[0]).toBe('run the job and keep working');
    expect(third.toolResults.map((t) => t.tool_call_id)).toEqual(['call_nb_spawn', 'call_nb_list']);
    // …and the turn kept its agent and model across the queued message
    for (const r of flow.requests) {
      expect(r.body.model).toBe(SESSION_MODEL.modelID);
      expect(systemText(r)).toContain(AGENT_MARKER);
    }
    // no extra turn was started for it
    await sleep(1_500);
    expect(model.requests.filter((r) => exitEnvelopes(r).some((e) => e.id === spawned.id)).map((r) => r.index)).toEqual(
      [third.index],
    );
    const { data: messages } = await server.client.session.messages({ sessionID: session }, { throwOnError: true });
    const users = messages.filter((m) => m.info.role === 'user');
    show(
      'busy: stored user messages',
      users.map((m) => ({ agent: m.info.agent, model: (m.info as { model?: unknown }).model })),
    );
    for (const u of users) expect(u.info).toMatchObject({ agent: AGENT, model: SESSION_MODEL });
  });

  it('expect in one call: a python REPL driven by pty_write waits alone, each answer and the next prompt in the call that typed it', async () => {
    const session = await newSession('repl waits');
    const PROMPT = { pattern: '>>> $' };
    let id = '';
    const flow = runFlow(model, [
      () => spawnCall('call_w_spawn', { command: 'python3', args: ['-q'], wait: PROMPT }),
      (req) => {
        id = result<Spawned>(req, 'call_w_spawn').id;
        return toolCall('pty_write', { id, data: 'x = 6 * 7\\n', wait: PROMPT }, 'call_w_assign');
      },
      () => toolCall('pty_write', { id, data: 'print("wait", x)\\n', wait: PROMPT }, 'call_w_print'),
      () => toolCall('pty_write', { id, data: 'exit()\\n', wait: PROMPT }, 'call_w_exit'),
      () => text('python said 42'),
    ]);
    await prompt(session, 'compute 6*7 in python');
    expect(flow.done).toBe(true);
    const last = flow.requests.at(-1)!;
    const spawned = result<Spawned & { reason: string; lines: ReadLine[] }>(last, 'call_w_spawn');
    show('pty_spawn with wait', spawned);
    expect(spawned).toMatchObject({ status: 'running', reason: 'match', match: { text: '>>> ', unfinished: true } });
    expect(result(last, 'call_w_assign')).toMatchObject({ reason: 'match', status: 'running' });
    const printed = result<{ reason: string; lines: ReadLine[]; cursor: string }>(last, 'call_w_print');
    show('pty_write with wait', printed);
    // input is not echoed: the answer follows the prompts on their line; the new prompt is the unfinished line
    expect(readText(printed)).toEqual(['>>> >>> wait 42', '>>> ']);
    expect(printed.lines[1]).toMatchObject({ unfinished: true });
    expect(printed.cursor).toMatch(/^L\d+(\.\d+)?$/);
    expect(result(last, 'call_w_exit')).toMatchObject({ reason: 'exit', status: 'exited', exitCode: 0 });
    // not one pty_read: every answer came with the write that asked for it
    expect(last.toolResults.map((t) => t.tool_call_id)).toEqual([
      'call_w_spawn',
      'call_w_assign',
      'call_w_print',
      'call_w_exit',
    ]);
  });

  it('a watch rule wakes an idle session with a pty.match envelope, keeping its agent and model', async () => {
    const session = await newSession('watch idle');
    const flow = runFlow(model, [
      () =>
        spawnCall('call_wi_spawn', {
          command: 'sh',
          args: ['-c', 'echo booting; sleep 2; echo "ready on port 4000"; sleep 3'],
          watch: [{ pattern: 'ready on' }],
          description: 'dev server for the watch wake',
        }),
      () => text('spawned; I will be told when it is ready'),
      () => text('noted: ready'),
    ]);
    const from = server.events.events.length;
    await prompt(session, 'start the server', { agent: AGENT, model: SESSION_MODEL });
    const idle = await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    const idleAt = server.events.receivedAt[server.events.events.indexOf(idle)]!;
    const spawned = result<Spawned>(flow.requests[1]!, 'call_wi_spawn');
    const woken = await timed(h.label, 'wait for the watch wake', () =>
      model.waitForRequest((r) => matchEnvelopes(r).length > 0, 20_000),
    );
    show('watch wake: model, user texts', { model: woken.body.model, userTexts: woken.userTexts.slice(-1) });
    expect(woken.receivedAt).toBeGreaterThan(idleAt);
    expect(matchEnvelopes(woken)).toEqual([
      {
        type: 'pty.match',
        id: spawned.id,
        description: 'dev server for the watch wake',
        pattern: 'ready on',
        line: 2,
        text: 'ready on port 4000',
        moreMatches: 0,
        status: 'running',
      },
    ]);
    expect(woken.body.model).toBe(SESSION_MODEL.modelID);
    expect(systemText(woken)).toContain(AGENT_MARKER);
    await eventAfter(
      server.events,
      server.events.events.indexOf(idle) + 1,
      'session.idle',
      (e) => e.properties.sessionID === session,
    );
    expect(flow.done).toBe(true);
  });

  it('Esc (session abort) ends a pending wait at once', async () => {
    const session = await newSession('abort wait');
    const WAIT_MS = 120_000;
    let id = '';
    runFlow(model, [
      () => spawnCall('call_wa_spawn', { command: 'cat', description: 'waits forever' }),
      (req) => {
        id = result<Spawned>(req, 'call_wa_spawn').id;
        return toolCall('pty_read', { id, wait: { pattern: 'never printed', timeoutMs: WAIT_MS } }, 'call_wa_read');
      },
      () => text('(not reached before the abort)'),
    ]);
    const from = server.events.events.length;
    await server.client.session.promptAsync(
      { sessionID: session, parts: [{ type: 'text', text: 'wait for it' }] },
      { throwOnError: true },
    );
    await server.events.waitFor(
      (e) => {
        if (e.type !== 'message.part.updated' || server.events.events.indexOf(e) < from) return false;
        const part = (e.properties as { part?: { type?: string; tool?: string; state?: { status?: string } } }).part;
        return part?.type === 'tool' && part.tool === 'pty_read' && part.state?.status === 'running';
      },
      30_000,
      'the pty_read with a wait to be running',
    );
    await sleep(500);
    const abortedAt = Date.now();
    await server.client.session.abort({ sessionID: session }, { throwOnError: true });
    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    const tookMs = Date.now() - abortedAt;
    show('abort → session idle (ms)', tookMs);
    expect(tookMs).toBeLessThan(10_000);
    const { data: messages } = await server.client.session.messages({ sessionID: session }, { throwOnError: true });
    const tool = messages
      .flatMap((m) => m.parts)
      .find((p) => p.type === 'tool' && (p as { tool?: string }).tool === 'pty_read') as
      | { state: { status: string; output?: string } }
      | undefined;
    show('the aborted pty_read part', tool?.state);
    // the plugin heard the abort signal: its wait ended as `aborted`, long before its timeout
    expect(tool?.state.status).toBe('completed');
    const waited = JSON.parse(tool!.state.output!) as { reason: string; waitedMs: number };
    expect(waited.reason).toBe('aborted');
    expect(waited.waitedMs).toBeLessThan(WAIT_MS / 10);
    await server.client.session.delete({ sessionID: session }, { throwOnError: true });
  });

  it('deleting the session ends its PTYs, a HUP/TERM-ignoring one included', async () => {
    const session = await newSession('delete');
    runFlow(model, [
      () =>
        toolCalls([
          { name: 'pty_spawn', arguments: { command: 'cat', description: 'cat' }, id: 'call_del_cat' },
          {
            name: 'pty_spawn',
            arguments: { command: 'sh', args: STUBBORN, description: 'stubborn' },
            id: 'call_del_stubborn',
          },
        ]),
      (req) => {
        ptys.push(
          snapshot(result<Spawned>(req, 'call_del_cat').pid),
          snapshot(result<Spawned>(req, 'call_del_stubborn').pid),
        );
        return text('two PTYs running');
      },
    ]);
    const ptys: PtyProcesses[] = [];
    await prompt(session, 'start two');
    expect(ptys.map((p) => p.members[0]?.comm)).toEqual(['cat', 'sh']);
    expect(survivors(ptys).length).toBeGreaterThanOrEqual(4); // 2 × script + cat + sh (+ its sleep)

    const from = server.events.events.length;
    const start = Date.now();
    await server.client.session.delete({ sessionID: session }, { throwOnError: true });
    await eventAfter(server.events, from, 'session.deleted', (e) => e.properties.sessionID === session);
    const goneMs = await waitUntilGone(ptys, CLOSE_BOUND_MS);
    show('session.delete → every PTY process gone (ms)', Date.now() - start);
    expect(goneMs).toBeLessThan(CLOSE_BOUND_MS);
  });

  it('stopping `opencode serve` with SIGTERM alone (no dispose) ends every PTY, a HUP/TERM-ignoring one included', async () => {
    const session = await newSession('sigterm');
    const ptys: PtyProcesses[] = [];
    runFlow(model, [
      () =>
        toolCalls([
          { name: 'pty_spawn', arguments: { command: 'cat', description: 'cat' }, id: 'call_term_cat' },
          {
            name: 'pty_spawn',
            arguments: { command: 'python3', args: ['-q'], description: 'repl' },
            id: 'call_term_py',
          },
          {
            name: 'pty_spawn',
            arguments: { command: 'sh', args: STUBBORN, description: 'stubborn' },
            id: 'call_term_stubborn',
          },
        ]),
      (req) => {
        for (const id of ['call_term_cat', 'call_term_py', 'call_term_stubborn'])
          ptys.push(snapshot(result<Spawned>(req, id).pid));
        return text('three PTYs running');
      },
    ]);
    await prompt(session, 'start three');
    expect(ptys.map((p) => p.members[0]?.comm)).toEqual(['cat', expect.stringMatching(/^python3/), 'sh']);
    const helpers = childrenOf(server.process.child.pid!);
    show(
      'children of opencode serve before the stop',
      helpers.map((p) => `${p.pid} ${p.comm}: ${p.cmdline.slice(0, 80)}`),
    );
    expect(helpers.filter((p) => p.cmdline.endsWith('local-pty-guard'))).toHaveLength(1); // the orphan guard

    const stopped = await server.stop({ disposeInstance: false });
    show('stop (SIGTERM only)', stopped);
    expect(stopped.signal).toBe('SIGTERM'); // OpenCode has no SIGTERM handler: no dispose, no 'exit' event
    // `script` dies with the host (pdeathsig) and the hangup ends cat and python3; the HUP/TERM-ignoring loop
    // survived that (seen before the orphan guard existed): the guard sees its pipe close and SIGKILLs it
    let goneMs: number | undefined;
    try {
      goneMs = await waitUntilGone(ptys, 5_000);
    } finally {
      show(
        'PTY processes left after SIGTERM',
        survivors(ptys).map((p) => `${p.pid} ${p.comm}: ${p.cmdline}`),
      );
    }
    show('SIGTERM → every PTY process gone (ms)', goneMs);
    expect(goneMs).toBeLessThan(CLOSE_BOUND_MS);
    expect(h.leftoverProcesses()).toEqual([]);
    // The guard leaves once a scan of its own finds every session empty: when the hangup ended everything at once
    // (9 ms here), that scan may still be running when the PTYs are already gone.
    const helpersGoneBy = Date.now() + CLOSE_BOUND_MS;
    while (helpers.some(isAlive) && Date.now() < helpersGoneBy) await sleep(50);
    expect(helpers.filter(isAlive)).toEqual([]);
  });
});

describeBuilt('local-pty in the real OpenCode ("permission": {"bash": "ask"})', () => {
  let model: MockModel;
  let h: OpencodeHarness;
  let server: ServeHandle;
  const seen: PtyProcesses[] = [];

  beforeAll(async () => {
    model = await MockModel.start();
    // Asks by default; two rules of the kind users write, to show they match pty_spawn's command line.
    h = await OpencodeHarness.create({
      model,
      label: 'local-pty-ask',
      ...localPtyViaConfigKey(),
      permission: { bash: { '*': 'ask', 'printf *': 'allow', 'rm *': 'deny' } },
    });
    server = await timed(h.label, 'serve() until ready', () => h.serve());
  }, 120_000);

  afterAll(async () => {
    show('PTY processes alive at the end of the describe', survivors(seen));
    await h?.dispose();
    await model?.close();
  });

  const newSession = async (title: string): Promise<string> =>
    (await server.client.session.create({ title }, { throwOnError: true })).data.id;
  const start = async (sessionID: string, words: string): Promise<number> => {
    const from = server.events.events.length;
    await server.client.session.promptAsync(
      { sessionID, parts: [{ type: 'text', text: words }] },
      { throwOnError: true },
    );
    return from;
  };
  const nextAsk = (sessionID: string, after: number) =>
    eventAfter(server.events, after, 'permission.asked', (e) => e.properties.sessionID === sessionID);
  const reply = (requestID: string, answer: 'once' | 'reject') =>
    server.client.permission.reply({ requestID, reply: answer }, { throwOnError: true });

  it('asks with the exact command line and the exact bytes; "once" starts the PTY and types', async () => {
    const session = await newSession('ask once');
    const token = `e2e-ask-${h.id}`;
    let id = '';
    let atSpawn: PtyProcesses | undefined;
    const flow = runFlow(model, [
      () => spawnCall('call_ask_spawn', { command: 'sh', args: ['-c', 'cat', `it's a PTY ${token}`] }),
      (req) => {
        const s = result<Spawned>(req, 'call_ask_spawn');
        id = s.id;
        atSpawn = ptyProcesses(s.pid);
        seen.push(atSpawn);
        return toolCall('pty_write', { id, data: 'printf hello\\n' }, 'call_ask_write_hello');
      },
      until(
        (n) => toolCall('pty_read', { id }, `call_ask_read_${n}`),
        (req, last) => readText(result(req, last)).includes('hello'),
      ),
      () => toolCall('pty_write', { id, data: '\\x03' }, 'call_ask_write_ctrl_c'),
      until(
        (n) => toolCall('pty_list', {}, `call_ask_list_${n}`),
        (req, last) => result<Listed>(req, last).ptys[0]?.status !== 'running',
      ),
      () => text('typed and interrupted'),
    ]);
    const from = await start(session, 'run cat, type, interrupt');

    // 1. the spawn: the exact command line, quoted only where needed, and nothing runs before the answer
    const spawnAsk = await nextAsk(session, from);
    show('permission.asked for pty_spawn', spawnAsk.properties);
    const commandLine = `sh -c cat 'it'\\''s a PTY ${token}'`;
    expect(spawnAsk.properties).toMatchObject({
      permission: 'bash',
      patterns: [commandLine],
      always: [],
      metadata: {
        command: commandLine,
        workdir: realpath(h.projectDir),
        tool: 'pty_spawn',
        title: `Start PTY: ${commandLine}`,
      },
      tool: { callID: 'call_ask_spawn' },
    });
    await sleep(300);
    expect(processesWithToken(token)).toEqual([]);
    await reply(spawnAsk.properties.id, 'once');

    // 2. the first write: its exact visible bytes
    const writeAsk = await nextAsk(session, server.events.events.indexOf(spawnAsk) + 1);
    show('permission.asked for pty_write printf hello\\n', writeAsk.properties);
    // The argv travels on a pipe (issue 10), so the token is in the program's own command line, not in script's.
    expect(processesWithToken(token).map((p) => p.comm)).toEqual(['sh']);
    expect(atSpawn!.members.map((p) => p.comm)).toContain('cat');
    expect(writeAsk.properties).toMatchObject({
      permission: 'bash',
      // Typed text that reads like an allowed command (`printf *`) is still asked: typing has rules of its own.
      patterns: ['pty_write printf hello\\n'],
      metadata: { id, bytes: 'printf hello\\n', byteCount: 13, tool: 'pty_write', command: commandLine },
    });
    await reply(writeAsk.properties.id, 'once');

    // 3. Ctrl-C, shown as \x03
    const ctrlAsk = await nextAsk(session, server.events.events.indexOf(writeAsk) + 1);
    show('permission.asked for pty_write \\x03', ctrlAsk.properties);
    expect(ctrlAsk.properties).toMatchObject({
      permission: 'bash',
      patterns: ['pty_write \\x03'],
      metadata: { bytes: '\\x03', byteCount: 1, tool: 'pty_write' },
    });
    await reply(ctrlAsk.properties.id, 'once');

    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    expect(flow.done).toBe(true);
    const last = flow.requests.at(-1)!;
    expect(result<Spawned>(last, 'call_ask_spawn')).toMatchObject({ status: 'running', command: 'sh' });
    expect(result(last, 'call_ask_write_hello')).toMatchObject({ bytesWritten: 13 });
    expect(result(last, 'call_ask_write_ctrl_c')).toMatchObject({ bytesWritten: 1 });
    const listed = result<Listed>(last, last.toolResults.at(-1)!.tool_call_id);
    show('pty_list after Ctrl-C', listed.ptys[0]);
    expect(listed.ptys[0]).toMatchObject({
      id,
      status: 'exited',
      exitCode: 130,
      signal: 'SIGINT',
      signalInferred: true,
    });
    expect(server.events.ofType('permission.asked').filter((e) => e.properties.sessionID === session)).toHaveLength(3);
    expect(survivors([atSpawn!])).toEqual([]);
  });

  it("the user's bash rules match the command line: an allowed command starts without a prompt, a denied one never starts", async () => {
    const session = await newSession('rules');
    const token = `e2e-rule-${h.id}`;
    let allowed: Spawned | undefined;
    runFlow(model, [
      () => spawnCall('call_rule_allowed', { command: 'printf', args: ['%s\\n', `allowed-${token}`] }),
      (req) => {
        allowed = result<Spawned>(req, 'call_rule_allowed');
        return spawnCall('call_rule_denied', { command: 'rm', args: ['-f', `/tmp/denied-${token}`] });
      },
      () => text('rules applied'),
    ]);
    const from = await start(session, 'printf, then rm');
    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    const asks = server.events.events
      .slice(from)
      .filter((e) => e.type === 'permission.asked' && (e.properties as { sessionID?: string }).sessionID === session);
    show('permission.asked events under the rules', asks.length);
    expect(asks).toEqual([]);
    expect(allowed?.id).toMatch(/^pty_[0-9a-f]{8}$/);
    const { data: messages } = await server.client.session.messages({ sessionID: session }, { throwOnError: true });
    const part = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.callID === 'call_rule_denied') as
      | { state: { status: string; error?: string } }
      | undefined;
    show('denied tool part state', part?.state);
    expect(part?.state).toMatchObject({
      status: 'error',
      error: expect.stringContaining('a rule which prevents you from using this specific tool call'),
    });
    expect(processesWithToken(token).filter((p) => p.cmdline.includes('denied-'))).toEqual([]);
  });

  it('"reject": no process starts, the turn ends, the model is shown the rejection as the tool error', async () => {
    const session = await newSession('ask reject');
    const token = `e2e-reject-${h.id}`;
    const flow = runFlow(model, [
      () => spawnCall('call_rej_spawn', { command: 'sh', args: ['-c', 'sleep 300', token] }),
      () => text('should not be reached in the same turn'),
    ]);
    const from = await start(session, 'start something');
    const asked = await nextAsk(session, from);
    expect(asked.properties.patterns).toEqual([`sh -c 'sleep 300' ${token}`]);
    await reply(asked.properties.id, 'reject');
    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    await sleep(500);
    expect(processesWithToken(token)).toEqual([]);
    // OpenCode ends the turn on a rejection: no further model request in it
    expect(flow.requests).toHaveLength(1);
    const { data: messages } = await server.client.session.messages({ sessionID: session }, { throwOnError: true });
    const part = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.callID === 'call_rej_spawn') as
      | { state: { status: string; error?: string } }
      | undefined;
    show('rejected tool part state', part?.state);
    expect(part?.state).toMatchObject({ status: 'error', error: expect.stringContaining('rejected permission') });
    expect(server.events.ofType('session.error').filter((e) => e.properties.sessionID === session)).toEqual([]);

    // the model sees the rejection as that call's result with the next prompt
    await server.client.session.prompt(
      { sessionID: session, parts: [{ type: 'text', text: 'why not?' }] },
      { throwOnError: true },
    );
    const next = flow.requests.at(-1)!;
    show('rejection as the model sees it', rawResult(next, 'call_rej_spawn'));
    expect(rawResult(next, 'call_rej_spawn')).toBe('The user rejected permission to use this specific tool call.');
    expect(processesWithToken(token)).toEqual([]);
  });

  it('pty_kill asks with "pty_kill <command line>"; instance dispose (OpenCode\'s clean shutdown) ends every PTY within the close bound', async () => {
    const session = await newSession('dispose');
    const ptys: PtyProcesses[] = [];
    let catPty: PtyProcesses | undefined;
    const flow = runFlow(model, [
      () => spawnCall('call_disp_stubborn', { command: 'sh', args: STUBBORN }),
      (req) => {
        ptys.push(ptyProcesses(result<Spawned>(req, 'call_disp_stubborn').pid));
        seen.push(...ptys);
        return spawnCall('call_disp_cat', { command: 'cat', args: ['-u'] });
      },
      (req) => {
        catPty = ptyProcesses(result<Spawned>(req, 'call_disp_cat').pid);
        seen.push(catPty);
        return toolCall('pty_kill', { id: result<Spawned>(req, 'call_disp_cat').id }, 'call_disp_kill');
      },
      () => text('one left running'),
    ]);
    const from = await start(session, 'start a stubborn one and a cat, then kill the cat');
    const spawnAsk = await nextAsk(session, from);
    await reply(spawnAsk.properties.id, 'once');
    const catAsk = await nextAsk(session, server.events.events.indexOf(spawnAsk) + 1);
    expect(catAsk.properties.patterns).toEqual(['cat -u']);
    await reply(catAsk.properties.id, 'once');
    const killAsk = await nextAsk(session, server.events.events.indexOf(catAsk) + 1);
    show('permission.asked for pty_kill', killAsk.properties);
    expect(killAsk.properties).toMatchObject({
      permission: 'bash',
      patterns: ['pty_kill cat -u'],
      metadata: { command: 'cat -u', tool: 'pty_kill', cleanup: false },
    });
    expect(survivors([catPty!]).length).toBeGreaterThan(0); // not killed before the answer
    await reply(killAsk.properties.id, 'once');
    await eventAfter(server.events, from, 'session.idle', (e) => e.properties.sessionID === session);
    expect(flow.done).toBe(true);
    expect(result(flow.requests.at(-1)!, 'call_disp_kill')).toMatchObject({ status: 'killed' });
    expect(survivors([catPty!])).toEqual([]);
    expect(ptys[0]!.members[0]).toMatchObject({ comm: 'sh' });

    // the orphan guard (src/engine/orphan-guard.ts) runs while PTYs do
    const guards = childrenOf(server.process.child.pid!).filter((p) => p.cmdline.endsWith('local-pty-guard'));
    expect(guards).toHaveLength(1);

    const t0 = Date.now();
    const n0 = server.events.events.length;
    await server.client.instance.dispose({}, { throwOnError: true });
    await server.events.waitFor(
      (e) => e.type === 'server.instance.disposed' && server.events.events.indexOf(e) >= n0,
      CLOSE_BOUND_MS + 5_000,
      'server.instance.disposed',
    );
    const disposeMs = Date.now() - t0;
    show('instance.dispose → server.instance.disposed (ms)', disposeMs);
    // OpenCode awaits the plugin's dispose hook: the PTYs are gone when it reports the instance disposed
    expect(survivors(ptys)).toEqual([]);
    expect(disposeMs).toBeLessThan(CLOSE_BOUND_MS);
    // no PTY left: the guard was told, and exits by itself
    await waitUntilGone([{ script: guards[0]!, terminalSid: null, members: [] }], 5_000);
    const stopped = await server.stop({ disposeInstance: false });
    expect(stopped.forced).toBe(false);
    expect(h.leftoverProcesses()).toEqual([]);
  });
});
