/**
 * A named export of an @xterm CommonJS bundle, which sets __esModule: Node's ESM loader (the shipped build) sees only
 * its default export, module.exports; CommonJS (ts-jest) and Bun see the named export too. Takes whichever is there.
 */
export function bundleExport<T>(module: object, name: string, bundle: string): T {
  const loaded = module as Record<string, unknown> & { default?: Record<string, unknown> };
  const found = loaded[name] ?? loaded.default?.[name];
  if (found === undefined) throw new Error(`${bundle}: no ${name} export found`);
  return found as T;
}
