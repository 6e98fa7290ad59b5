import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UNIT_NAME = 'opencode-local-pty.service';
const UNIT_PATH = join(__dirname, '..', '..', 'service', UNIT_NAME);
const unitText = readFileSync(UNIT_PATH, 'utf8');

/** `[Section]` → its `Key=value` lines (comments and blank lines dropped; a key may repeat). */
function parseUnit(text: string): Map<string, Array<[string, string]>> {
  const sections = new Map<string, Array<[string, string]>>();
  let current: Array<[string, string]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = [];
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (current === undefined || eq < 0) throw new Error(`unparsable unit line: ${raw}`);
    current.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const unit = parseUnit(unitText);
const values = (section: string, key: string) => (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
const environment = new Map(
  values('Service', 'Environment').map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]),
);

describe(`service/${UNIT_NAME}: static checks`, () => {
  it('has the sections of a service', () => {
    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
  });

  it.each([
    ['NoNewPrivileges', 'yes'],
    ['Restart', 'on-failure'],
    ['KillMode', 'control-group'],
  ])('sets %s=%s', (key, value) => {
    expect(values('Service', key)).toEqual([value]);
  });

  it.each(['TasksMax', 'MemoryMax', 'LimitNOFILE'])('limits resources with %s', (key) => {
    expect(values('Service', key)).toHaveLength(1);
    expect(values('Service', key)[0]).toMatch(/^\d+[KMGT]?$/);
  });

  it('serves on port 4096 from an absolute, specifier-based ExecStart', () => {
    const [exec] = values('Service', 'ExecStart');
    expect(values('Service', 'ExecStart')).toHaveLength(1);
    expect(exec).toMatch(/^%h\/\S+ serve .*--port 4096\b/);
  });

  it('gives the server isolated XDG, config and data paths, built from specifiers', () => {
    for (const key of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'OPENCODE_CONFIG_DIR']) {
      expect(environment.get(key)).toMatch(/^%[hESC]\/.*opencode-local-pty/);
    }
    // Four distinct places: nothing shared with the user's own OpenCode (whose paths have no opencode-local-pty).
    const paths = ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'].map((k) =>
      environment.get(k),
    );
    expect(new Set(paths).size).toBe(4);
  });

  it("runs as the manager's own ordinary user with the user's normal groups: no identity or group override", () => {
    for (const key of [
      'User',
      'Group',
      'SupplementaryGroups',
      'DynamicUser',
      'AmbientCapabilities',
      'CapabilityBoundingSet',
      'PAMName',
    ]) {
      expect(values('Service', key)).toEqual([]);
    }
    expect(values('Unit', 'ConditionUser')).toEqual(['!@system']);
    // The reason for leaving the groups alone is written down next to the setting.
    expect(unitText).toMatch(/#.*Supplementary groups: deliberately not set/);
  });

  it.each([
    ['root', /\broot\b/i],
    ['helper', /helper/i],
    ['readiness', /readiness|sd_notify|\bnotify\b|NotifyAccess/i],
    ['socket transfer', /socket|ListenStream|Sockets=|FileDescriptorStore/i],
    ['transient unit', /transient|systemd-run/i],
    ['supervisor', /supervisor|cgroup|Delegate=/i],
    ['privilege changes', /\bsudo\b|PermissionsStartOnly|^ExecStart=[!+@]/im],
  ])('mentions no %s anywhere, comments included', (_what, pattern) => {
    expect(unitText).not.toMatch(pattern);
  });

  it('hard-codes no home directory or user', () => {
    expect(unitText).not.toMatch(/\/home\/|\/root\b|\/Users\/|~\w/);
    for (const [, entries] of unit) for (const [, value] of entries) expect(value).not.toMatch(/(^|[\s=])~\//);
  });
});

const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
const describeWithAnalyze = analyze ? describe : describe.skip;

/**
 * Runs `systemd-analyze --user verify` on a copy of the unit, in a throw-away user environment: HOME is a temp
 * root whose `.local/bin/opencode` is a stand-in executable, so ExecStart (`%h/.local/bin/opencode`) resolves
 * to something real without rewriting the unit. XDG_RUNTIME_DIR points into it too (the user manager needs one).
 *
 * Output is filtered to lines about this unit (its name or path): verify also loads units it depends on, and
 * their warnings (from the machine's own unit files) are not this unit's to fix. Any remaining line fails.
 */
function verify(withStandIn: boolean): { status: number | null; aboutUnit: string[]; all: string } {
  const root = mkdtempSync(join(tmpdir(), 'local-pty-unit-'));
  try {
    const home = join(root, 'home');
    const runtime = join(root, 'run');
    mkdirSync(join(home, '.local', 'bin'), { recursive: true });
    mkdirSync(runtime, { mode: 0o700 });
    if (withStandIn) {
      const standIn = join(home, '.local', 'bin', 'opencode');
      writeFileSync(standIn, '#!/bin/sh\nexit 0\n');
      chmodSync(standIn, 0o755);
    }
    const copy = join(root, UNIT_NAME);
    copyFileSync(UNIT_PATH, copy);
    const result = spawnSync(analyze!, ['--user', 'verify', copy], {
      encoding: 'utf8',
      env: {
        PATH: '/usr/bin:/bin',
        HOME: home,
        XDG_RUNTIME_DIR: runtime,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        SYSTEMD_LOG_COLOR: '0',
      },
      timeout: 20_000,
    });
    const all = `${result.stdout}${result.stderr}`;
    const aboutUnit = all.split('\n').filter((l) => l.includes(UNIT_NAME) || l.includes(copy));
    return { status: result.status, aboutUnit, all };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describeWithAnalyze(`service/${UNIT_NAME}: systemd-analyze --user verify`, () => {
  it('verifies with no warning about the unit', () => {
    const { status, aboutUnit, all } = verify(true);
    expect(aboutUnit).toEqual([]);
    expect({ status, all }).toEqual({ status: 0, all: expect.any(String) });
  });

  it('does report the unit when its executable is missing (the filter sees this unit’s warnings)', () => {
    const { aboutUnit } = verify(false);
    expect(aboutUnit.join('\n')).toMatch(/Command .*\/\.local\/bin\/opencode is not executable/);
  });
});
