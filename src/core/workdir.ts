import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { PtyError } from '../errors.js';
import { checkPathBounds } from '../engine/command-bounds.js';

export interface ResolvedWorkdir {
  readonly realPath: string;
  /** Outside the project directory: the user must allow `external_directory`. */
  readonly external: boolean;
}

/** Resolves a workdir (absolute or project-relative) to its real path and says whether it leaves the project. */
export async function resolveWorkdir(requested: string | undefined, projectDir: string): Promise<ResolvedWorkdir> {
  if (requested !== undefined) checkPathBounds('workdir', requested);
  // The project directory itself (the usual case): its real path and what it is, asked at once (one thread-pool round
  // trip's wait, not two; the binding checks the directory again, through its descriptor).
  if (requested === undefined) {
    const [project, info] = await Promise.all([realpath(projectDir), stat(projectDir)]);
    if (!info.isDirectory()) throw notDirectory(project);
    return { realPath: project, external: false };
  }
  const project = await realpath(projectDir);
  const wanted = isAbsolute(requested) ? requested : resolve(project, requested);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (err) {
    throw new PtyError(
      'invalid_input',
      `workdir ${wanted} does not exist (${(err as NodeJS.ErrnoException).code}). Give an existing directory.`,
    );
  }
  await directoryOnly(real);
  const inside = real === project || real.startsWith(project.endsWith('/') ? project : `${project}/`);
  return { realPath: real, external: !inside };
}

async function directoryOnly(real: string): Promise<string> {
  if (!(await stat(real)).isDirectory()) throw notDirectory(real);
  return real;
}

const notDirectory = (real: string) => new PtyError('invalid_input', `workdir ${real} is not a directory.`);

/** After approval: the path must still resolve to what the user approved. */
export async function recheckWorkdir(approved: string): Promise<void> {
  let now: string;
  try {
    now = await realpath(approved);
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
