import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { PtyError } from '../../src/errors.js';
import { recheckWorkdir, resolveWorkdir } from '../../src/core/workdir.js';

// base/real/project/sub, base/real/sibling, base/outside, base/link → real/project, project/away → outside,
// project/file.txt.
let base: string;
let project: string;
let link: string;
let outside: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'local-pty-workdir-')));
  project = join(base, 'real', 'project');
  mkdirSync(join(project, 'sub'), { recursive: true });
  mkdirSync(join(base, 'real', 'sibling'));
  outside = join(base, 'outside');
  mkdirSync(outside);
  link = join(base, 'link');
  symlinkSync(project, link);
  symlinkSync(outside, join(project, 'away'));
  writeFileSync(join(project, 'file.txt'), 'x');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** What resolveWorkdir gives for a directory: its real path, the directory it is now, and where it lies. */
function resolved(realPath: string, external: boolean) {
  const stats = statSync(realPath, { bigint: true });
  return { realPath, identity: { dev: stats.dev, ino: stats.ino, birthtimeNs: stats.birthtimeNs }, external };
}

async function refusal(promise: Promise<unknown>): Promise<PtyError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PtyError);
  return err as PtyError;
}

describe('resolveWorkdir', () => {
  it('gives the project itself, as its real path, when no workdir is asked for', async () => {
    expect(await resolveWorkdir(undefined, project)).toEqual(resolved(project, false));
    expect(await resolveWorkdir(undefined, link)).toEqual(resolved(project, false));
  });

  it('resolves a relative workdir against the project: inside stays inside, .. out of it is external', async () => {
    expect(await resolveWorkdir('sub', link)).toEqual(resolved(join(project, 'sub'), false));
    // `..` is taken from the project's real path, not from the link it was given as.
    expect(await resolveWorkdir('../sibling', link)).toEqual(resolved(join(base, 'real', 'sibling'), true));
  });

  it('judges an absolute workdir by where it really is', async () => {
    expect(await resolveWorkdir(outside, project)).toEqual(resolved(outside, true));
    expect(await resolveWorkdir(join(project, 'away'), project)).toEqual(resolved(outside, true));
    expect(await resolveWorkdir(join(link, 'sub'), project)).toEqual(resolved(join(project, 'sub'), false));
  });

  it('refuses a workdir that does not exist, naming it as resolved', async () => {
    const err = await refusal(resolveWorkdir('missing/dir', link));
    expect(err.code).toBe('invalid_input');
    expect(err.message).toBe(
      `workdir ${join(project, 'missing/dir')} does not exist (ENOENT). Give an existing directory.`,
    );
  });

  it('refuses a file', async () => {
    const err = await refusal(resolveWorkdir('file.txt', project));
    expect(err.message).toBe(`workdir ${join(project, 'file.txt')} is not a directory.`);
  });

  it('refuses a project "directory" that is a file, by its real path', async () => {
    const fileLink = join(base, 'file-link');
    symlinkSync(join(project, 'file.txt'), fileLink);
    const err = await refusal(resolveWorkdir(undefined, fileLink));
    expect(err.message).toBe(`workdir ${join(project, 'file.txt')} is not a directory.`);
  });
});

describe('recheckWorkdir', () => {
  it('passes while the path still resolves to what was approved, and refuses once it does not', async () => {
    const dir = join(base, 'moving');
    mkdirSync(dir);
    expect(recheckWorkdir(dir)).toBeUndefined();
    renameSync(dir, join(base, 'moved'));
    symlinkSync(outside, dir);
    const err = await refusal(Promise.resolve().then(() => recheckWorkdir(dir)));
    expect(err.message).toBe(
      `workdir ${dir} changed while waiting for approval (now ${outside}). Nothing was started.`,
    );
  });

  it('refuses an approved directory that is gone', () => {
    const dir = join(base, 'vanishing');
    mkdirSync(dir);
    rmSync(dir, { recursive: true });
    expect(() => recheckWorkdir(dir)).toThrow(
      new PtyError(
        'invalid_input',
        `workdir ${dir} changed while waiting for approval (now (gone)). Nothing was started.`,
      ),
    );
  });
});

describe('a workdir written for a shell', () => {
  const home = userInfo().homedir;

  it.each([
    [
      '~',
      ` A leading ~ is not expanded (no shell reads workdir): give the absolute path (the PTYs' home directory is ${home}).`,
    ],
    [
      '~/src',
      ` A leading ~ is not expanded (no shell reads workdir): give the absolute path (the PTYs' home directory is ${home}).`,
    ],
    ['~root/x', ' A leading ~ is not expanded (no shell reads workdir): give the absolute path.'],
    ['$HOME/x', ' Variables ($HOME, ${PWD}) are not expanded (no shell reads workdir): give the absolute path.'],
    ['${PWD}', ' Variables ($HOME, ${PWD}) are not expanded (no shell reads workdir): give the absolute path.'],
  ])('refuses %s, saying it is not expanded', async (workdir, hint) => {
    const err = await refusal(resolveWorkdir(workdir, project));
    expect(err.code).toBe('invalid_input');
    expect(err.message).toBe(
      `workdir ${join(project, workdir)} does not exist (ENOENT).${hint} Give an existing directory.`,
    );
  });

  it('takes a directory that is named ~ (it exists)', async () => {
    mkdirSync(join(project, '~'));
    expect(await resolveWorkdir('~', project)).toEqual(resolved(join(project, '~'), false));
  });
});
