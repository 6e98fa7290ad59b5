import { afterEach, beforeEach } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER } from 'rxjs';
import { fixedEnvironment } from '../../src/engine/environment.js';
import { LocalPty } from '../../src/core/local-pty.js';
import { silentLogger, type PermissionRequest } from '../../src/core/host-port.js';
import type { z } from 'zod';
import {
  KillResult,
  ListResult,
  ReadResult,
  type ScreenView,
  SpawnResult,
  WriteResult,
} from '../../src/protocol/tool-results.js';
import { sleep } from '../../src/testkit/waits.js';
import { PTY_TOOLS, runTool } from '../../src/tools/definitions.js';

/** Every answer is parsed with its protocol schema (strict): a field the screen adds without declaring it fails. */
const RESULT_SCHEMAS: Record<string, z.ZodType> = {
  pty_spawn: SpawnResult,
  pty_write: WriteResult,
  pty_read: ReadResult,
  pty_list: ListResult,
  pty_kill: KillResult,
};

/** The real core behind the real tool definitions (schemas included), a project dir, and every prompt recorded and allowed. */
/** A fresh rig for each test of the file, closed after it (its PTYs and tmux servers ended): `ctx.rig`. */
export function useScreenRig(): { readonly rig: ScreenRig } {
  let current: ScreenRig | undefined;
  beforeEach(() => {
    current = new ScreenRig();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get rig(): ScreenRig {
      if (current === undefined) throw new Error('no screen rig outside a test');
      return current;
    },
  };
}

export class ScreenRig {
  readonly dir = realpathSync(mkdtempSync(join(tmpdir(), 'lpty-screen-')));
  readonly asked: PermissionRequest[] = [];
  readonly core = new LocalPty({
    projectDir: this.dir,
    host: { notify: async () => {}, sessionDeleted$: NEVER, log: silentLogger },
  });
  /** tmux servers started for this test: ended with the rig. */
  private readonly oracles: TmuxOracle[] = [];
  private readonly ctx = { owner: 'ses_screen', ask: async (r: PermissionRequest) => void this.asked.push(r) };

  // biome-ignore lint/suspicious/noExplicitAny: the rig hands each test the answer shape that test parses itself
  async call(tool: string, args: unknown): Promise<any> {
    const def = PTY_TOOLS.find((t) => t.name === tool);
    const schema = RESULT_SCHEMAS[tool];
    if (def === undefined || schema === undefined) throw new Error(`no tool ${tool}`);
    return schema.parse((await runTool(def, this.core, this.ctx, args)).value);
  }

  async spawn(command: string, args: string[], rows: number, cols: number, workdir?: string): Promise<string> {
    return (
      await this.call('pty_spawn', {
        command,
        args,
        rows,
        cols,
        description: `screen test: ${command}`,
        ...(workdir === undefined ? {} : { workdir }),
      })
    ).id;
  }

  /** Two directories with the same content, one for our PTY and one for tmux, so both show the same names. */
  sides(files: Record<string, string>): { ours: string; theirs: string } {
    const ours = join(this.dir, 'ours');
    const theirs = join(this.dir, 'theirs');
    for (const d of [ours, theirs]) {
      mkdirSync(d);
      for (const [name, content] of Object.entries(files)) writeFileSync(join(d, name), content);
    }
    return { ours, theirs };
  }

  async screen(id: string): Promise<ScreenView> {
    return (await this.call('pty_read', { id, screen: true })).screen;
  }

  /** The screen once it has stopped changing for `quietMs` and passes `ready`. */
  async settled(
    id: string,
    ready: (s: ScreenView) => boolean,
    what: string,
    timeoutMs = 15_000,
    quietMs = 400,
  ): Promise<ScreenView> {
    return settle(
      () => this.screen(id),
      (s) => JSON.stringify(s.rows),
      ready,
      what,
      timeoutMs,
      quietMs,
    );
  }

  /** The same program under a private tmux server, the oracle for what the screen must show; ended by close. */
  oracle(cwd: string, rows: number, cols: number, command: string[]): TmuxOracle {
    const oracle = new TmuxOracle(cwd, rows, cols, command);
    this.oracles.push(oracle);
    return oracle;
  }

  async close(): Promise<void> {
    for (const oracle of this.oracles.splice(0)) oracle.kill();
    await this.core.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function settle<T>(
  look: () => Promise<T>,
  key: (t: T) => string,
  ready: (t: T) => boolean,
  what: string,
  timeoutMs: number,
  quietMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let since = Date.now();
  let value = await look();
  for (;;) {
    const k = key(value);
    if (k !== last) {
      last = k;
      since = Date.now();
    } else if (ready(value) && Date.now() - since >= quietMs) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value, null, 1)}`);
    await sleep(50);
    value = await look();
  }
}

/** VT100 line drawing, as xterm draws it. */
const DEC_SPECIAL_GRAPHICS: Record<string, string> = {
  '`': '◆',
  a: '▒',
  f: '°',
  g: '±',
  j: '┘',
  k: '┐',
  l: '┌',
  m: '└',
  n: '┼',
  o: '⎺',
  p: '⎻',
  q: '─',
  r: '⎼',
  s: '⎽',
  t: '├',
  u: '┤',
  v: '┴',
  w: '┬',
  x: '│',
  y: '≤',
  z: '≥',
  '{': 'π',
  '|': '≠',
  '}': '£',
  '~': '·',
};

/**
 * The oracle: the same program in a private tmux server, same size, same TERM and environment as our PTYs,
 * no status line. `capture()` is what tmux shows, one string per row, trailing blanks trimmed.
 */
export class TmuxOracle {
  private readonly name = `lpty${process.pid}x${Math.random().toString(16).slice(2, 8)}`;
  private readonly conf: string;

  constructor(cwd: string, rows: number, cols: number, command: string[]) {
    this.conf = join(cwd, `.${this.name}.conf`);
    writeFileSync(this.conf, 'set -g default-terminal xterm-256color\nset -g status off\nset -g escape-time 0\n');
    const env = Object.entries(fixedEnvironment()).map(([k, v]) => `${k}=${v}`);
    // Our PTYs do not echo input (script --echo never): neither does this one. onlcr stays on here, as the
    // emulator's convertEol puts back what our PTYs' -onlcr leaves out.
    const sameTermios = ['sh', '-c', 'stty -echo; exec "$@"', 'sh'];
    this.tmux([
      '-f',
      this.conf,
      'new-session',
      '-d',
      '-s',
      this.name,
      '-c',
      cwd,
      '-x',
      String(cols),
      '-y',
      String(rows),
      'env',
      '-i',
      ...env,
      ...sameTermios,
      ...command,
    ]);
  }

  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, ...args], {
      encoding: 'utf8',
      env: { ...process.env, TMUX: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** tmux send-keys: key names as tmux spells them, or literal text with `literal`. */
  send(keys: string[], literal = false): void {
    this.tmux(['send-keys', '-t', this.name, ...(literal ? ['-l'] : []), ...keys]);
  }

  /**
   * The plain capture shows line-drawing characters (the DEC special graphics set a curses box uses) as the ASCII
   * letters they are sent as; with -e tmux marks those runs with SO/SI, so they are drawn here as a terminal shows them.
   */
  capture(): string[] {
    const out = this.tmux(['capture-pane', '-p', '-e', '-t', this.name]);
    let graphics = false;
    return out
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => {
        let row = '';
        for (const ch of line.replace(/\x1b\[[0-9;:]*m/g, '')) {
          if (ch === '\x0e') graphics = true;
          else if (ch === '\x0f') graphics = false;
          else row += graphics ? (DEC_SPECIAL_GRAPHICS[ch] ?? ch) : ch;
        }
        return row.replace(/ +$/, '');
      });
  }

  /** Everything tmux keeps: its scrollback and the screen, one string per row, trailing blanks and rows trimmed. */
  history(): string[] {
    const rows = this.tmux(['capture-pane', '-p', '-S', '-', '-E', '-', '-t', this.name])
      .split('\n')
      .map((row) => row.replace(/ +$/, ''));
    while (rows.length > 0 && rows.at(-1) === '') rows.pop();
    return rows;
  }

  resize(rows: number, cols: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(cols), '-y', String(rows)]);
  }

  settled(ready: (rows: string[]) => boolean, what: string, timeoutMs = 15_000, quietMs = 400): Promise<string[]> {
    return settle(
      async () => this.capture(),
      (r) => JSON.stringify(r),
      ready,
      `tmux: ${what}`,
      timeoutMs,
      quietMs,
    );
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // Already gone with its last session.
    }
    rmSync(this.conf, { force: true });
  }
}
