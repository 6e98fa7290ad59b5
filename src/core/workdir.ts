import { realpathSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { PtyError } from '../errors.js';
import { type DirectoryIdentity, identityOf } from '../engine/bound-directory.js';
import { checkPathBounds } from '../engine/command-bounds.js';
import { fixedEnvironment } from '../engine/environment.js';

export interface ResolvedWorkdir {
  readonly realPath: string;
  /** The directory it was when resolved, before the user was asked: the spawn binds only that one (bindDirectory). */
  readonly identity: DirectoryIdentity;
  /** Outside the project directory: the user must allow `external_directory`. */
  readonly external: boolean;
}

/** Resolves a workdir (absolute or project-relative) to its real path and says whether it leaves the project. */
export async function resolveWorkdir(requested: string | undefined, projectDir: string): Promise<ResolvedWorkdir> {
  if (requested !== undefined) checkPathBounds('workdir', requested);
  // The project directory itself (the usual case), asked synchronously: it is the host's own project, so a filesystem
  // hung there has hung the host already, and a thread-pool round trip cost 0.5–0.9 ms of every spawn in Node (page
  // faults on the pool's pages after each fork). A path the model gives goes through the pool: it may lie on a hung
  // mount, and nothing may block the host before the user has approved it.
  if (requested === undefined) {
    const project = realpathSync.native(projectDir);
    const stats = statSync(project, { bigint: true });
    if (!stats.isDirectory()) throw notDirectory(project);
    return { realPath: project, identity: identityOf(stats), external: false };
  }
  const project = await realpath(projectDir);
  const wanted = isAbsolute(requested) ? requested : resolve(project, requested);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (err) {
    throw new PtyError(
      'invalid_input',
      `workdir ${wanted} does not exist (${(err as NodeJS.ErrnoException).code}).${shellHint(requested)} Give an existing directory.`,
    );
  }
  const identity = await directoryOnly(real);
  const inside = real === project || real.startsWith(project.endsWith('/') ? project : `${project}/`);
  return { realPath: real, identity, external: !inside };
}

/**
 * No shell reads workdir: "~" was looked for as a directory named ~ in the project, and the model was told only that
 * PROJECT/~ does not exist. Said when the path does not exist: a directory of that name is still a workdir.
 */
function shellHint(requested: string): string {
  if (requested === '~' || requested.startsWith('~/'))
    return ` A leading ~ is not expanded (no shell reads workdir): give the absolute path (the PTYs' home directory is ${fixedEnvironment()['HOME']}).`;
  if (requested.startsWith('~'))
    return ' A leading ~ is not expanded (no shell reads workdir): give the absolute path.';
  if (/\$(\w|\{)/.test(requested))
    return ' Variables ($HOME, ${PWD}) are not expanded (no shell reads workdir): give the absolute path.';
  return '';
}

async function directoryOnly(real: string): Promise<DirectoryIdentity> {
  const stats = await stat(real, { bigint: true });
  if (!stats.isDirectory()) throw notDirectory(real);
  return identityOf(stats);
}

const notDirectory = (real: string) => new PtyError('invalid_input', `workdir ${real} is not a directory.`);

/**
 * After approval: the path must still resolve to what the user approved. Synchronous: the binding that follows at
 * once opens the directory synchronously too (the spawn's chdir needs its descriptor), so this adds no wait on a
 * hung filesystem that the binding would not.
 */
export function recheckWorkdir(approved: string): void {
  let now: string;
  try {
    now = realpathSync.native(approved);
  } catch {
    now = '(gone)';
  }
  if (now !== approved) {
    throw new PtyError(
      'invalid_input',
      `workdir ${approved} changed while waiting for approval (now ${now}). Nothing was started.`,
    );
  }
}
