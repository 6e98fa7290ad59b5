import { readFileSync } from 'node:fs';

/** This process's minor page faults so far (/proc/self/stat, field 10, read after the command name's last ") "). */
export function minorFaults(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[7]);
}
