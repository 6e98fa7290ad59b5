import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';
import { PtyError } from '../errors.js';
import { O_CLOEXEC } from './linux-abi.js';

/**
 * Which directory a path named when it was approved: a directory removed and made again at the same path is another.
 * Its birth time too: ext4 hands the freed inode number straight to the new directory (measured here, same dev and
 * inode); where a filesystem keeps no birth time it reads 0 on both sides, and the inode alone decides.
 */
export interface DirectoryIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly birthtimeNs: bigint;
}

/** The identity of a directory from its stat (taken with `bigint: true`). */
export const identityOf = (stats: DirectoryIdentity): DirectoryIdentity => ({
  dev: stats.dev,
  ino: stats.ino,
  birthtimeNs: stats.birthtimeNs,
});

/** A directory held open by descriptor so that the path approved is the directory the command runs in. */
export interface BoundDirectory {
  readonly fd: number;
  /** What to pass as `cwd`: the chdir happens in the forked child, through the descriptor. */
  readonly cwdPath: string;
  readonly realPath: string;
  /** Idempotent: closes the descriptor the first time only. */
  close(): void;
}

/**
 * Opens `approvedRealPath` (already resolved with realpath and approved) with O_NOFOLLOW, then checks that
 * the descriptor really is that directory. A symlink swapped in after approval is refused, not followed:
 * O_NOFOLLOW fails on it with ENOTDIR (with O_DIRECTORY), and a swapped parent shows in the readlink.
 */
export function bindDirectory(approvedRealPath: string, approved?: DirectoryIdentity): BoundDirectory {
  let fd: number;
  try {
    // Close-on-exec, which Bun does not add by itself: the spawn's chdir through it happens before the exec, and
    // held open across it, the chain would inherit it (and inheritable-fds.ts would send every spawn the long way).
    fd = openSync(approvedRealPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | O_CLOEXEC);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PtyError(
      'invalid_input',
      code === 'ENOTDIR' || code === 'ELOOP'
        ? `workdir ${approvedRealPath} is no longer the directory that was approved (it is now a symlink or not a directory). Nothing was started.`
        : `workdir ${approvedRealPath} cannot be opened (${code ?? String(err)}). Nothing was started.`,
    );
  }
  let closed = false;
  const bound: BoundDirectory = {
    fd,
    cwdPath: `/proc/self/fd/${fd}`,
    realPath: approvedRealPath,
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
  let actual: string;
  try {
    actual = readlinkSync(bound.cwdPath);
  } catch (err) {
    bound.close();
    throw new PtyError(
      'invalid_input',
      `workdir ${approvedRealPath} could not be verified (${String(err)}). Nothing was started.`,
    );
  }
  if (actual !== approvedRealPath) {
    bound.close();
    throw new PtyError(
      'invalid_input',
      `workdir ${approvedRealPath} now resolves to ${actual}, not the directory that was approved. Nothing was started.`,
    );
  }
  if (approved !== undefined) {
    const held = fstatSync(fd, { bigint: true });
    if (held.dev !== approved.dev || held.ino !== approved.ino || held.birthtimeNs !== approved.birthtimeNs) {
      bound.close();
      throw new PtyError(
        'invalid_input',
        `workdir ${approvedRealPath} is another directory than the one that was approved (it was removed and made again while the prompt was open). Nothing was started.`,
      );
    }
  }
  return bound;
}
