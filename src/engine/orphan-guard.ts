import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { ORPHAN_GUARD_LINGER_MS, ORPHAN_GUARD_RESTART_AFTER_MS } from '../limits.js';
import { fixedEnvironment } from './environment.js';
import { BASH_PATH } from './system-paths.js';

/**
 * The guard's program. It reads `+SID` / `-SID` lines (a PTY's terminal session to guard / to forget) from its
 * stdin, whose other end only the host holds. EOF means the host is gone (or has nothing left to guard): then it
 * ends every session still listed the way a sweep's freeze does (see sweep-session.ts), so that a fork-and-exit
 * worm cannot outrun it: SIGSTOP every process group and every member seen, rescan until a scan finds every
 * member stopped and none new, then SIGKILL the groups and the members; repeat until a scan finds none, and exit.
 *
 * A session's fields are read from /proc/PID/stat after the LAST ") " (the command name may hold spaces and
 * parentheses): state, ppid, pgrp, session. Descriptors above 2 that the host inherited without close-on-exec
 * are closed first, as for the PTYs themselves (see script-invocation.ts). A group id ≤ 1 is never signalled.
 */
const GUARD_PROGRAM = [
  'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null',
  'declare -A live=()',
  'while IFS= read -r line; do',
  '  if [[ $line =~ ^([+-])([0-9]+)$ ]]; then',
  '    if [[ ${BASH_REMATCH[1]} == + ]]; then live[${BASH_REMATCH[2]}]=1; else unset "live[${BASH_REMATCH[2]}]"; fi',
  '  fi',
  'done',
  '(( ${#live[@]} == 0 )) && exit 0',
  'for round in {1..100}; do',
  "  seen=' '",
  '  for scan in {1..20}; do',
  "    pids=' '; groups=' '; moving=0",
  '    for f in /proc/[0-9]*/stat; do',
  '      read -r s < "$f" 2>/dev/null || continue',
  "      set -- ${s##*') '}",
  '      if [[ $1 != Z && -n ${live[$4]} ]]; then',
  '        p=${f%/stat}; p=${p#/proc/}; pids+="$p "',
  '        [[ $groups == *" $3 "* ]] || groups+="$3 "',
  '        [[ $1 == [Tt] && $seen == *" $p "* ]] || moving=1',
  '      fi',
  '    done',
  "    [[ $pids == ' ' ]] && exit 0",
  '    for g in $groups; do (( g > 1 )) && kill -STOP -- "-$g"; done 2>/dev/null',
  '    kill -STOP $pids 2>/dev/null',
  '    (( moving )) || break',
  '    seen=$pids',
  '  done',
  '  for g in $groups; do (( g > 1 )) && kill -KILL -- "-$g"; done 2>/dev/null',
  '  kill -KILL $pids 2>/dev/null',
  'done',
].join('\n');

/**
 * Ends the PTYs of a host that died without closing the plugin. OpenCode 1.18.33 (`opencode serve`) has no
 * SIGTERM handler: SIGTERM ends it at once, no JavaScript runs (no dispose hook, no 'exit' event), and a
 * plugin must not add a handler (that would change the host's own shutdown). Were `script` alone to die with the
 * host, the kernel would hang up its terminal, but a command that ignores SIGHUP, and anything it started, would
 * outlive it.
 *
 * So while PTYs run, one small detached bash (its own session: a signal to the host's process group does not
 * reach it) holds the read end of a pipe from the host and the list of live PTY session ids. When the host
 * exits, by any signal or SIGKILL, the pipe reaches EOF and the guard kills those sessions. When the last PTY
 * has ended, the guard stays ORPHAN_GUARD_LINGER_MS for the next one, then the host closes the pipe with an empty
 * list and the guard exits; closing the plugin ends an idle guard at once. It exists only while PTYs do, or did
 * moments ago.
 *
 * Two sessions per PTY are listed. `script`'s own (it is started detached: its pid is its session id) from right
 * after its spawn until it is reaped: while the guard runs, `script` is started without `setpriv --pdeathsig`, the
 * guard being what makes it die with the host (one exec less per spawn, ≈2 ms; docs/perf-journal.md). And the
 * terminal's, from the moment its leader is seen until the session is EMPTY (not when `script` closes: members the
 * program left behind are guarded too). Linux does not reuse a pid while it names a live session, so the guard
 * never hits a stranger's session. A guard killed while sessions are listed is started again with the list (see
 * ORPHAN_GUARD_RESTART_AFTER_MS). While no guard runs (before the first PTY, or if it cannot start), `script`
 * starts behind `setpriv` as before and dies with the host by the kernel's hand; the terminal's SIGHUP-immune
 * members then are what a guard that cannot start leaves behind.
 */
/** The guard's $0: how it shows in `ps` and /proc/PID/cmdline. */
const ORPHAN_GUARD_NAME = 'local-pty-guard';

/** How the guard is started: detached (its own session, so a signal to the host's process group misses it). */
export const guardCommand = (): { file: string; args: string[]; options: SpawnOptions } => ({
  file: BASH_PATH,
  args: ['--norc', '--noprofile', '-c', GUARD_PROGRAM, ORPHAN_GUARD_NAME],
  options: { cwd: '/', env: fixedEnvironment(), detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
});

export class OrphanGuard {
  private child: ChildProcess | undefined;
  private readonly sessions = new Set<number>();
  /** Guards started and not yet reaped: the current one and any still exiting (at most one per stop). */
  private readonly alive = new Set<number>();
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly lingerMs: number = ORPHAN_GUARD_LINGER_MS,
    private readonly restartAfterMs: number = ORPHAN_GUARD_RESTART_AFTER_MS,
  ) {}

  /**
   * Whether a guard process is up (started and not seen to end): a session watched now is on its list at once,
   * written to its pipe before `watch` returns.
   */
  get running(): boolean {
    return this.child?.pid !== undefined;
  }

  /** Guards the session `sessionId` (a `script`'s own, or a terminal's) until `release`. */
  watch(sessionId: number): void {
    if (this.sessions.has(sessionId)) return;
    this.stopLingering();
    this.sessions.add(sessionId);
    if (this.child) this.send(`+${sessionId}`);
    else this.start();
  }

  /** `script` is reaped, or the terminal's session is empty: forget it; with none left, the guard exits once it has lingered. */
  release(sessionId: number): void {
    if (!this.sessions.delete(sessionId)) return;
    this.send(`-${sessionId}`);
    if (this.sessions.size > 0 || this.child === undefined) return;
    if (this.lingerMs <= 0) {
      this.stop();
      return;
    }
    this.lingering = setTimeout(() => this.stopIfIdle(), this.lingerMs);
    // Never what keeps the host alive.
    this.lingering.unref();
  }

  /** With no session to guard, the guard exits now (the plugin is closing). */
  stopIfIdle(): void {
    this.stopLingering();
    if (this.sessions.size === 0) this.stop();
  }

  /** pid of the running guard, if any (for tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Every guard process not yet reaped, the exiting ones included (so leak checks can tell them apart). */
  get pids(): ReadonlySet<number> {
    return this.alive;
  }

  /** What the host's death does: the pipe closes with the sessions still listed (for tests). */
  abandon(): void {
    this.stopLingering();
    this.sessions.clear();
    this.stop();
  }

  private stopLingering(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
  }

  private start(): void {
    let child: ChildProcess;
    try {
      const { file, args, options } = guardCommand();
      child = spawn(file, args, options);
    } catch {
      return;
    }
    const pid = child.pid;
    const startedAt = performance.now();
    if (pid !== undefined) this.alive.add(pid);
    child.on('error', () => this.forget(child));
    child.on('exit', () => {
      if (pid !== undefined) this.alive.delete(pid);
      // Still ours when it died: not stopped by us, so killed by someone, with sessions relying on it.
      const killed = this.child === child;
      this.forget(child);
      if (killed && this.sessions.size > 0 && performance.now() - startedAt >= this.restartAfterMs) this.start();
    });
    child.stdin?.on('error', () => undefined);
    // Neither the guard nor its pipe may keep the host's event loop alive.
    child.unref();
    (child.stdin as { unref?: () => void } | null)?.unref?.();
    this.child = child;
    for (const sessionId of this.sessions) this.send(`+${sessionId}`);
  }

  private stop(): void {
    const child = this.child;
    this.child = undefined;
    child?.stdin?.end();
  }

  /** The guard died (killed by someone, or it could not start): the next `watch` starts a new one. */
  private forget(child: ChildProcess): void {
    if (this.child === child) this.child = undefined;
  }

  private send(line: string): void {
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed && stdin.writable) stdin.write(`${line}\n`);
  }
}

/** One guard per host process: it watches over every PTY of every plugin instance in it. */
export const orphanGuard = new OrphanGuard();
