import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** This process's minor page faults so far (/proc/self/stat, field 10, read after the command name's last ") "). */
export function minorFaults(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[7]);
}

/** Resolves once a /bin/true spawned now has exited: in Node, the host has forked. */
function spawnedTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

/**
 * Minor faults taken writing `memory` over again right after a spawn, beside an ordinary buffer of its size written
 * the same way: the control, whose every page faults again after Node's fork (copy-on-write). Both are written once
 * before the spawn.
 */
export async function faultsWritingAgainAfterSpawn(memory: Uint8Array): Promise<{ memory: number; ordinary: number }> {
  const ordinary = Buffer.allocUnsafeSlow(memory.length);
  memory.fill(1);
  ordinary.fill(1);
  await spawnedTrue();
  let before = minorFaults();
  ordinary.fill(2);
  const ordinaryFaults = minorFaults() - before;
  before = minorFaults();
  memory.fill(2);
  return { memory: minorFaults() - before, ordinary: ordinaryFaults };
}
