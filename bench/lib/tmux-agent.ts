import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fixedEnvironment } from '../../src/engine/environment.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../../src/limits.js';
import { ClientRunner } from './client-runner.js';

/**
 * A program in a private tmux server (`tmux -L NAME`), driven the way terminal agents drive tmux: one `tmux`
 * client process per action (`send-keys`, `capture-pane`), started and awaited. An agent's harness starts them, so a
 * runner process does here (client-runner.ts), not the host the bench measures the plugin in. Same size as the
 * plugin's default PTY (40×120, no status line) and the same environment (`env -i` + fixedEnvironment), like the
 * screen tests' oracle (test/support/screen-rig.ts), but asynchronous, so the host's event loop keeps turning.
 */
export class TmuxAgent {
  private readonly name = `lpty-loop-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'lpty-loop-'));
  private readonly runner = new ClientRunner();
  /** tmux client processes started so far: what an agent pays per look. */
  invocations = 0;

  private constructor() {}

  /** Starts the server with `command` in its only pane; `kill()` must follow, whatever happens. */
  static async start(command: readonly string[]): Promise<TmuxAgent> {
    const agent = new TmuxAgent();
    const conf = join(agent.dir, 'tmux.conf');
    writeFileSync(conf, 'set -g default-terminal xterm-256color\nset -g status off\nset -g escape-time 0\n');
    const env = Object.entries(fixedEnvironment()).map(([k, v]) => `${k}=${v}`);
    // The plugin's PTYs do not echo (as in the screen oracle); onlcr stays on, since tmux renders the screen.
    const sameTermios = ['sh', '-c', 'stty -echo; exec "$@"', 'sh'];
    try {
      await agent.tmux([
        '-f',
        conf,
        'new-session',
        '-d',
        '-s',
        agent.name,
        '-c',
        agent.dir,
        '-x',
        String(DEFAULT_COLS),
        '-y',
        String(DEFAULT_ROWS),
        'env',
        '-i',
        ...env,
        ...sameTermios,
        ...command,
      ]);
    } catch (err) {
      await agent.kill();
      throw err;
    }
    agent.invocations = 0;
    return agent;
  }

  /** One client process: `tmux -L NAME ARGS…`, resolving with its stdout. */
  tmux(args: readonly string[]): Promise<string> {
    this.invocations++;
    return this.runner.run(['tmux', '-L', this.name, ...args], { ...process.env, TMUX: '' });
  }

  /** The text typed literally, then Enter: one client process (tmux's own `;` chains the two commands). */
  sendLine(text: string): Promise<string> {
    return this.tmux(['send-keys', '-t', this.name, '-l', text, ';', 'send-keys', '-t', this.name, 'Enter']);
  }

  /** The visible pane, one string per row, trailing blanks trimmed (what Terminal-Bench's agent reads). */
  async capture(): Promise<string[]> {
    const out = await this.tmux(['capture-pane', '-p', '-t', this.name]);
    return out
      .replace(/\n$/, '')
      .split('\n')
      .map((row) => row.replace(/ +$/, ''));
  }

  /** Ends the server and its program; never throws (the bench calls it in `finally`). */
  async kill(): Promise<void> {
    await this.tmux(['kill-server']).catch(() => undefined);
    this.runner.close();
    rmSync(this.dir, { recursive: true, force: true });
    // A killed server leaves its socket behind: where `-L` put it (tmux's own rule: TMUX_TMPDIR or /tmp).
    rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${userInfo().uid}`, this.name), { force: true });
  }
}
