import type { z } from 'zod';
import type { CallContext } from '../core/host-port.js';
import type { LocalPty } from '../core/local-pty.js';
import {
  DEFAULT_READ_LIMIT,
  GREP_CPU_BUDGET_MS,
  GREP_WALL_TIMEOUT_MS,
  LINE_OVERHEAD_CHARS,
  MAX_BUFFER_CHARS,
  MAX_LINE_CHARS,
  MAX_RAW_CHARS,
  MAX_READ_LIMIT,
  MAX_READ_OFFSET,
  MAX_SESSIONS,
  MAX_SESSIONS_PER_OWNER,
  MAX_WRITE_BYTES,
  CANONICAL_LINE_MAX_BYTES,
  DEFAULT_WAIT_TIMEOUT_MS,
  MAX_WAIT_TIMEOUT_MS,
  MAX_WATCH_RULES,
  MATCH_NOTIFY_INTERVAL_MS,
  MIN_QUIET_MS,
} from '../limits.js';
import { LINEAR_PATTERN_SYNTAX } from '../patterns/linear-pattern.js';
import { parseInput } from './parse-input.js';
import { KillArgs, ListArgs, ReadArgs, SpawnArgs, WriteArgs } from '../protocol/tool-inputs.js';

export interface PtyTool<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly args: S;
  run(core: LocalPty, ctx: CallContext, input: z.infer<z.ZodObject<S>>): Promise<unknown> | unknown;
}

/** How every wait works, said once and shared by the three tools that take one. */
const WAIT_RULES = [
  `wait: {pattern?, ignoreCase?, quietMs?, timeoutMs?} returns when the first of these happens: a line that arrives during the call (with pty_read's cursor: since that cursor) matches pattern (${LINEAR_PATTERN_SYNTAX}; the unfinished last line counts, so a prompt like ">>> " or "[y/N] " matches; some programs (IPython, prompt_toolkit) draw a prompt's last space by moving the cursor, so end a prompt pattern with " ?$" rather than " $"), while a full-screen program is on the alternate screen (vim, less), a screen row it drew during the call matches it (a new row, or one printed again; not one that only scrolled), since what it draws is not in the lines (screenMatch: the row, 0-based, and its text; with a cursor, since the cursor was handed out); no output came for quietMs (≥ ${MIN_QUIET_MS}, counted after some output came), the program exits, or timeoutMs passes (default ${DEFAULT_WAIT_TIMEOUT_MS}, at most ${MAX_WAIT_TIMEOUT_MS}).`,
  'The result has reason (match, quiet, exit, timeout, aborted, killed, owner_deleted, closed), waitedMs, match (the line and its number; screenMatch instead for a screen row), lines (the output that arrived, the unfinished line marked unfinished) and cursor.',
].join(' ');

function defineTool<S extends z.ZodRawShape>(tool: PtyTool<S>): PtyTool<S> {
  return tool;
}

export const ptySpawn = defineTool({
  name: 'pty_spawn',
  description: [
    'Start a program in a real interactive terminal (PTY) that keeps running: a REPL, dev server, test watcher, debugger, or anything that asks questions.',
    'The program gets a real terminal on stdin/stdout/stderr (stderr is merged into the output); `command` is the program and `args` its arguments, passed exactly (no shell: to use pipes or `&&`, run command "bash" with args ["-c", "..."]).',
    "Runs as the user, with a clean environment (HOME, USER, LOGNAME, SHELL=/bin/sh, LANG=C.UTF-8, PATH=/usr/local/bin:/usr/bin:/bin, TERM=xterm-256color), under the user's permission for the exact command line.",
    'Returns the PTY id at once, and a cursor: pty_read {cursor, wait} from it later waits for output since the start, what came meanwhile included; with wait, first waits for what you expect (e.g. wait: {pattern: ">>> $"} for a Python prompt) and returns its output too.',
    WAIT_RULES,
    'Set notifyOnExit: true to get a pty.exit message in this session when it ends, instead of checking on it.',
    `watch: [{pattern}] (at most ${MAX_WATCH_RULES} rules) sends a pty.match message to this session when a finished line of output matches: watch a server for "listening on" or a test watcher for "failed" and go on with other work instead of polling (at most one message per ${MATCH_NOTIFY_INTERVAL_MS / 1000} s per PTY; it counts the matches in between).`,
    `Limits: ${MAX_SESSIONS_PER_OWNER} PTYs per session (ended ones are evicted first), ${MAX_SESSIONS} in all; output keeps the newest ${MAX_BUFFER_CHARS.toLocaleString('en-US')} characters, each line counting ${1 + LINE_OVERHEAD_CHARS} more (about ${Math.round(MAX_BUFFER_CHARS / (80 + 1 + LINE_OVERHEAD_CHARS) / 1000)}k lines of 80).`,
  ].join(' '),
  args: SpawnArgs,
  run: (core, ctx, input) => core.spawn(ctx, input),
});

export const ptyWrite = defineTool({
  name: 'pty_write',
  description: [
    'Type into a running PTY: text, Enter ("\\n"), or keys as escapes (\\x03 Ctrl-C, \\x04 Ctrl-D/EOF, \\x1b Esc, \\t Tab).',
    'Or, instead of data, `input`: text and named keys in order, e.g. [{"key":"Esc"},{"text":":wq"},{"key":"Enter"}] or [{"key":"Down","times":3}]. Its text is typed exactly as given, with no escapes (use it for code: "a\\nb" stays a backslash and an n), and each key goes as a key press of its own, as a person types.',
    "Key names (as tmux): Enter (sends \\r, as the Enter key does), Tab, Esc, Backspace, Delete, Insert, Home, End, PageUp, PageDown, Up, Down, Left, Right, F1-F12, Space; C- (Ctrl), M- (Alt), S- (Shift) prefixes: C-c, M-x, C-Left, S-Tab. Arrows are sent as the program's current mode expects.",
    '`resize: {rows, cols}` changes the terminal size (the program gets SIGWINCH and redraws); alone it types nothing and needs no approval.',
    "Under the user's permission for the exact bytes (keys shown by name). Returns the number of bytes written.",
    'Type and wait in one call: give wait with the prompt or answer you expect (wait: {pattern: ">>> $"} after a Python line, {pattern: "\\(Pdb\\) $"} in pdb, {quietMs: 500} when you do not know what comes), and the result carries the output, so no pty_read is needed.',
    WAIT_RULES,
    `At most ${MAX_WRITE_BYTES} bytes per write; a program in line mode takes lines of at most ${CANONICAL_LINE_MAX_BYTES} bytes (longer ones are refused, never cut).`,
    'Input is not echoed by the terminal, so an answer follows the prompt on its line (">>> 42"): do not anchor a prompt pattern with ^. A program that shows what you type (a shell, a REPL, vim\'s command line) shows it before the answer, and a pattern that matches the typed text matches that too: match what only the answer holds (after :echo "xyz" in vim, wait for "^xyz$", not "xyz").',
  ].join(' '),
  args: WriteArgs,
  run: (core, ctx, input) => core.write(ctx, input),
});

export const ptyRead = defineTool({
  name: 'pty_read',
  description: [
    "Read a PTY's output as clean lines (colors and cursor codes removed, progress bars at their last state), each with its absolute line number.",
    `Page with offset (0-based over the retained lines, at most ${MAX_READ_OFFSET}) and limit (default ${DEFAULT_READ_LIMIT}, at most ${MAX_READ_LIMIT}); tail: true gives the newest lines.`,
    `pattern (POSIX extended regex, as grep -E reads it, not wait.pattern's RE2: [0-9] for a digit, no \\d, no (?i): use ignoreCase; syntax grep would read another way is refused with what to write) returns only matching lines (offset pages through the matches); a pattern that needs over ${GREP_CPU_BUDGET_MS} ms of CPU time is stopped as too expensive, and a search on a busy machine after ${GREP_WALL_TIMEOUT_MS} ms.`,
    `Lines longer than ${MAX_LINE_CHARS} characters are cut (cutFrom: the length kept); a line longer than the whole buffer keeps only its end (headDropped: the characters lost from its start). raw: true gives the terminal text as written (its newest ${MAX_RAW_CHARS} characters; droppedChars counts the older ones, and firstLineCut marks a first raw line that began among them).`,
    'Works after the program ended, too.',
    'Every read of lines (plain, raw, pattern or wait) has a cursor; pass it back as cursor to get only the lines after it (the unfinished last line included), so nothing is read twice.',
    `With wait, first waits for new output (same rules as pty_write's wait). ${WAIT_RULES}`,
    'screen: true returns the visible screen instead: rows (one string per row), cursor {row, col, visible} (0-based), alternateScreen, title, size; use it for full-screen programs (vim, less, top, menus).',
    'While such a program is on the alternate screen, a plain read includes `screen` by itself; what it draws there is not in the lines, as a terminal keeps none of it in its scrollback.',
  ].join(' '),
  args: ReadArgs,
  run: (core, ctx, input) => core.read(ctx, input),
});

export const ptyList = defineTool({
  name: 'pty_list',
  description:
    "List this session's PTYs with their status (starting, running, lingering, exited, killed, timeout), exit code, command, line count, pid (the terminal) and commandPid (the program itself). lingering: the program exited but processes it left in its terminal session (e.g. a server it backgrounded) still run; `lingering` lists them (count, pid and command) until they end or pty_kill ends them. To interrupt or end a program, type \\x03 with pty_write or use pty_kill; do not signal these pids.",
  args: ListArgs,
  run: (core, ctx) => core.list(ctx),
});

export const ptyKill = defineTool({
  name: 'pty_kill',
  description: [
    'End a PTY and every process still in its terminal session (TERM, then after a grace period every process is stopped and KILLed), including a lingering PTY whose program already exited; the user is asked first.',
    'Returns when the session is empty, with the final status; should processes survive the bounded sweep, `survivors` lists them (pid, command) and the PTY stays listed: call pty_kill again. Its output stays readable unless cleanup: true, which also removes it.',
    'A process that detached itself with setsid or daemonized is outside the terminal session and is not ended.',
  ].join(' '),
  args: KillArgs,
  run: (core, ctx, input) => core.kill(ctx, input),
});

/** The five tools, in the order the model should learn them. */
export const PTY_TOOLS: readonly PtyTool[] = [
  ptySpawn,
  ptyWrite,
  ptyRead,
  ptyList,
  ptyKill,
] as unknown as readonly PtyTool[];

/** Runs one tool call: validated input, the core's answer as a JSON envelope. Errors are thrown as they are. */
export async function runTool(
  tool: PtyTool,
  core: LocalPty,
  ctx: CallContext,
  rawInput: unknown,
): Promise<{ text: string; value: unknown }> {
  const input = parseInput(tool.name, tool.args, rawInput);
  const value = await tool.run(core, ctx, input);
  return { text: JSON.stringify(value), value };
}
