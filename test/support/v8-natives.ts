import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's own view of hidden classes and functions, through its test natives; turned on for the importing worker only,
// before the natives below are parsed (by `new Function`).
setFlagsFromString('--allow-natives-syntax');
setFlagsFromString('--expose-gc');

/** A full collection. */
export const gc = runInNewContext('gc') as () => void;

export const natives = {
  sameMap: new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean,
  prepare: new Function('f', '%PrepareFunctionForOptimization(f)') as (f: unknown) => void,
  optimizeNext: new Function('f', '%OptimizeFunctionOnNextCall(f)') as (f: unknown) => void,
  status: new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number,
};

/** V8's OptimizationStatus::kOptimized: the function runs optimized code that is not marked for deoptimization. */
export const OPTIMIZED = 1 << 4;
