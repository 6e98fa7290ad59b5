import { describe, expect, it } from '@jest/globals';
import { leaderTerminal, ptsPathOf } from '../../src/engine/resize-terminal.js';
import { PtyProbe } from '../support/pty-probe.js';

/** The kernel's dev_t encoding as /proc/PID/stat shows tty_nr (new_encode_dev). */
const encode = (major: number, minor: number) => (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12);

describe('the PTY device of a terminal session', () => {
  it('maps tty_nr to /dev/pts/N across all eight PTY majors, and refuses other terminals', () => {
    expect(ptsPathOf(encode(136, 3))).toBe('/dev/pts/3');
    expect(ptsPathOf(encode(136, 300))).toBe('/dev/pts/300');
    expect(ptsPathOf(encode(137, 5))).toBe('/dev/pts/261');
    expect(ptsPathOf(encode(143, 255))).toBe('/dev/pts/2047');
    expect(ptsPathOf(encode(4, 1))).toBeUndefined();
    expect(ptsPathOf(0)).toBeUndefined();
  });

  it("finds a live leader's device, checked against the device node, and refuses a process that leads no session", async () => {
    const probe = new PtyProbe({ command: 'sleep', args: ['30'] });
    try {
      const handle = await probe.until(
        () => (probe.handle?.terminalSid ? probe.handle : undefined),
        'the session leader',
      );
      expect(leaderTerminal(handle.terminalSid!)).toBe(handle.terminal());
      expect(() => leaderTerminal(process.pid)).toThrow(/has ended; the terminal can no longer be resized/);
      expect(() => leaderTerminal(2 ** 22 + 1)).toThrow(/has ended/);
    } finally {
      await probe.dispose();
    }
  });
});
