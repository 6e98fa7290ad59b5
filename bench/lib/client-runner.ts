import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * Reads one request per line, `{"id", "argv", "env"}`, runs it to its end and answers one line, `{"id", "code",
 * "stdout", "stderr"}`: one at a time, as an agent's harness awaits each action. Python's subprocess starts a
 * process without copying its own memory (vfork), and Terminal-Bench's harness is Python.
 */
const RUNNER_PROGRAM = `
import json, subprocess, sys
for line in sys.stdin:
    req = json.loads(line)
    r = subprocess.run(req["argv"], capture_output=True, env=req["env"])
    out = {"id": req["id"], "code": r.returncode, "stdout": r.stdout.decode("utf-8", "replace"), "stderr": r.stderr.decode("utf-8", "replace")}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
`;

interface Answer {
  readonly id: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Starts a driver's client processes (tmux's) from a python3 process of its own, not from the bench's host. Node's
 * spawn forks the host, and after a fork every page the host writes faults once more (copy-on-write, 14 µs a page on
 * the bench machine): tmux's two client processes or more per interaction taxed the plugin's next interaction in the
 * same host, 0.4–0.8 ms of its main thread (docs/perf-journal.md, nineteenth session). A driver that forks pays that in
 * its own process, as an agent driving tmux does; the plugin's agent has nothing to fork.
 */
export class ClientRunner {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, { resolve: (stdout: string) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  private received = '';
  private ended: Error | undefined;

  constructor() {
    this.child = spawn('python3', ['-c', RUNNER_PROGRAM], { stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text: string) => this.onData(text));
    let stderr = '';
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => (stderr += text));
    this.child.on('error', (err) => this.fail(err));
    this.child.on('close', (code) => this.fail(new Error(`the client runner ended (code ${code}): ${stderr.trim()}`)));
  }

  /** `argv` run to its end with `env`: its stdout, or a rejection with its stderr when it exits nonzero. */
  run(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, argv, env })}\n`);
    });
  }

  /** The runner exits once it has answered what it was asked. */
  close(): void {
    this.child.stdin.end();
  }

  private onData(text: string): void {
    this.received += text;
    for (let end = this.received.indexOf('\n'); end !== -1; end = this.received.indexOf('\n')) {
      const answer = JSON.parse(this.received.slice(0, end)) as Answer;
      this.received = this.received.slice(end + 1);
      const waiter = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (answer.code === 0) waiter?.resolve(answer.stdout);
      else waiter?.reject(new Error(`exit ${answer.code}: ${answer.stderr.trim()}`));
    }
  }

  private fail(err: Error): void {
    this.ended ??= err;
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }
}
