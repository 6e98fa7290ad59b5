import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { brokenBackends, realBackend } from '../../src/smoke/backends.js';
import { runScenarioOnce, warmUp } from '../../src/smoke/runner.js';
import type { Scenario } from '../../src/smoke/scenario.js';
import { scenarioNamed } from '../../src/smoke/scenarios/index.js';
import { isRunning } from '../../src/testkit/processes.js';
import { waitFor } from '../../src/testkit/waits.js';

jest.setTimeout(60_000);

function scenario(name: string): Scenario {
  const s = scenarioNamed(name);
  if (s === undefined) throw new Error(`no scenario ${name}`);
  return s;
}

// The smoke run proves things only if its scenarios can fail: each is run against a backend broken in exactly
// the way it checks for, and must fail saying what it expected and what it saw; against the real plugin it passes.
describe('smoke scenarios fail against a broken backend and pass against the real one', () => {
  beforeAll(() => warmUp());

  it('escalation fails when termination skips the KILL step, and its leftovers are ended', async () => {
    const result = await runScenarioOnce(scenario('escalation'), brokenBackends['no-kill']);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /the PTY session after pty_kill returned: expected no process left, saw [1-9]\d*: \d+ (sh|sleep)/,
    );
    // What the broken backend left behind is ended (by the plugin's own teardown sweep, which the broken
    // termination does not replace, or else by the runner's cleanup), so a failing run does not poison the next one.
    const reported = [...(result.error ?? '').matchAll(/(\d+) (?:sh|sleep) \(/g)].map((m) => Number(m[1]));
    expect(reported.length).toBeGreaterThan(0);
    await waitFor(
      () => reported.every((pid) => !isRunning(pid)),
      `the reported survivors ${reported.join(', ')} are gone`,
      2_000,
    );
  });

  it('escalation passes against the real plugin', async () => {
    const result = await runScenarioOnce(scenario('escalation'), realBackend);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
  });

  it('reservations fails when the reservation check is disabled', async () => {
    const result = await runScenarioOnce(scenario('reservations'), brokenBackends['no-reservations']);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /20 concurrent spawns from one session: expected \{ succeeded: 5, refused: \{ limit: 15 \} \}, saw \{ succeeded: 20, refused: \{\} \}/,
    );
    // Nothing is left: dispose ended all twenty.
    expect(result.error).not.toMatch(/cleanup:/);
  });

  it('reservations passes against the real plugin', async () => {
    const result = await runScenarioOnce(scenario('reservations'), realBackend);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
  });

  it('the cleanup check catches a leaked descriptor and a leftover child (and ends the child)', async () => {
    let fd = -1;
    const leakFd: Scenario = {
      name: 'leak-fd',
      summary: 'opens a descriptor and keeps it',
      run: async () => {
        fd = openSync('/dev/null', 'r');
      },
    };
    try {
      const result = await runScenarioOnce(leakFd);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(
        /cleanup: expected \d+ open descriptors as before the run, saw \d+ \(new: .*\/dev\/null/,
      );
    } finally {
      if (fd >= 0) closeSync(fd);
    }

    let childPid = -1;
    const leakChild: Scenario = {
      name: 'leak-child',
      summary: 'starts a child and leaves it',
      run: async () => {
        const child = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
        await new Promise((resolve) => child.once('spawn', resolve));
        childPid = child.pid ?? -1;
      },
    };
    const result = await runScenarioOnce(leakChild);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      new RegExp(`cleanup: expected no child process of the smoke run left, saw ${childPid} sleep`),
    );
    await waitFor(() => !isRunning(childPid), 'the leftover child is gone', 2_000);
  });
});
