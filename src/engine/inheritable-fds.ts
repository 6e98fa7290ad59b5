import { closeSync, existsSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { O_CLOEXEC } from './linux-abi.js';

/** `pos:` (at most 20 digits) and `flags:` lines come first in an fdinfo file: this many bytes hold both. */
const FDINFO_HEAD_BYTES = 96;

/**
 * Devices a descriptor may stay open on in `setpriv` and `script` without effect on anything: no end of file anyone
 * waits for, no lock, no peer. OpenCode 1.18's Bun holds two on /dev/urandom without close-on-exec (fds 3 and 9,
 * seen), which made every spawn there take the closing step. The wrapper closes them before the program runs, as it
 * closes everything above 2.
 */
const HARMLESS_DEVICES: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
]);

/**
 * Whether a process holds a descriptor above 2 that does NOT close at exec: one the host inherited from its
 * parent (a pipe at fd 251 was seen here), or one a native addon opened without O_CLOEXEC; one on a device that
 * grants nothing (HARMLESS_DEVICES) does not count. Node and libuv open everything close-on-exec (Bun's `openSync`
 * does not: bound-directory.ts asks for it), and `spawn` maps the child's stdio onto 0–3 itself, so a host that holds
 * none passes nothing extra to a child, and the PTY chain can skip its descriptor-closing step (one exec, ≈2 ms of
 * every spawn; see script-invocation.ts). Read from /proc/PID/fdinfo, the kernel's own word on each descriptor.
 * When /proc cannot tell (not mounted, an entry unreadable for another reason than being gone), the answer is
 * true: the closing step is kept.
 *
 * Asked on every spawn, since an addon may open such a descriptor at any time; but reading every fdinfo costs
 * ≈7.5 µs per descriptor (0.14 ms for a bare Node's 19, 0.37 ms for 49, 0.94 ms for 119, measured), so each call
 * lists the descriptors (0.02–0.07 ms) and reads the flags only of numbers it has not seen in the previous
 * listing. A number closed and reused between two spawns keeps its old verdict: the wrapper closes every
 * descriptor above 2 before the program runs anyway (script-invocation.ts), so a miss can only leave the
 * descriptor held by `setpriv`/`script` for the PTY's life, never show it to the command.
 */
export class InheritableDescriptors {
  /** Verdict per descriptor number seen in the last listing: true = inheritable. */
  private known = new Map<number, boolean>();
  private readonly head = Buffer.alloc(FDINFO_HEAD_BYTES);

  constructor(private readonly procDir = '/proc/self') {}

  held(): boolean {
    let names: string[];
    try {
      names = readdirSync(`${this.procDir}/fdinfo`);
    } catch {
      this.known = new Map();
      return true;
    }
    const next = new Map<number, boolean>();
    let any = false;
    for (const name of names) {
      const fd = Number(name);
      if (!(fd > 2)) continue;
      let inheritable = this.known.get(fd);
      if (inheritable === undefined) {
        const flags = this.flagsOf(name);
        // Gone since the listing (the listing's own descriptor, for one): not held, and not remembered.
        if (flags === 'gone') continue;
        // `flags:` is the open flags in octal; where O_CLOEXEC's number is not known (0), every descriptor counts.
        inheritable = (flags === undefined || (flags & O_CLOEXEC) === 0) && !this.onHarmlessDevice(name);
      }
      next.set(fd, inheritable);
      any ||= inheritable;
    }
    this.known = next;
    return any;
  }

  private onHarmlessDevice(name: string): boolean {
    try {
      return HARMLESS_DEVICES.has(readlinkSync(`${this.procDir}/fd/${name}`));
    } catch {
      return false;
    }
  }

  /** The `flags:` of one descriptor; undefined when unreadable or unparsable (counted as inheritable). */
  private flagsOf(name: string): number | 'gone' | undefined {
    const path = `${this.procDir}/fdinfo/${name}`;
    // Every listing names its own descriptor, closed by the time it is read: asked first without an exception, since
    // a thrown ENOENT (its message and stack) was most of this check's 0.2–0.3 ms per spawn in Node.
    if (!existsSync(path)) return 'gone';
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
    }
    try {
      const text = this.head.toString('latin1', 0, readSync(fd, this.head, 0, FDINFO_HEAD_BYTES, null));
      const match = /^flags:\s*([0-7]+)$/m.exec(text);
      return match === null ? undefined : Number.parseInt(match[1]!, 8);
    } catch (err) {
      // The kernel looks the descriptor up when the file is read, not when it is opened: one closed in between
      // fails the read with ENOENT. Taken for "held" before, it failed CI once (a shell's glob closing its listing).
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/** The host's own descriptors, remembered between spawns. */
export const hostDescriptors = new InheritableDescriptors();
