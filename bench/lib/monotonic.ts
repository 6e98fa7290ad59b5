/**
 * The host's reading of CLOCK_MONOTONIC, in ns: `process.hrtime` plus the offset the loop suite's clock check found.
 * In Node the offset is 0 (libuv reads CLOCK_MONOTONIC). Bun's `process.hrtime` counts from the process's start, so
 * there the check measures the offset against Python's CLOCK_MONOTONIC and sets it here.
 */
let offsetNs = 0n;

export function monotonicNs(): bigint {
  return process.hrtime.bigint() + offsetNs;
}

export function setMonotonicOffset(ns: bigint): void {
  offsetNs = ns;
}
