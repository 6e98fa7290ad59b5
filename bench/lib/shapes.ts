import { MiB } from './util.js';

/** An output shape: a shell pipeline writing exactly `bytes` bytes, and how many lines that renders to. */
export interface Shape {
  readonly key: 'long' | 'log' | 'short' | 'colored';
  readonly title: string;
  script(bytes: number): string;
  lines(bytes: number): number;
}

export const LONG: Shape = {
  key: 'long',
  title: 'long lines (no newline)',
  script: (bytes) => `head -c ${bytes} /dev/zero | tr '\\0' a`,
  lines: () => 1,
};

/** 79 chars + \n: a typical log or compiler line. */
export const LOG: Shape = {
  key: 'log',
  title: '80-byte lines',
  script: (bytes) => `yes ${'x'.repeat(79)} | head -c ${bytes}`,
  lines: (bytes) => Math.ceil(bytes / 80),
};

/** `yes`: "y\n", the worst case per byte. */
export const SHORT: Shape = {
  key: 'short',
  title: 'short lines (yes, 2 B)',
  script: (bytes) => `yes | head -c ${bytes}`,
  lines: (bytes) => Math.ceil(bytes / 2),
};

const COLORED_LINE = '\x1b[32mPASS\x1b[0m src/components/widget/panel.test.ts \x1b[2m(12 ms)\x1b[0m ok ok ok done\n';

/** 80-byte lines as a test runner colors them: four SGR sequences around 58 characters of text. */
export const COLORED: Shape = {
  key: 'colored',
  title: 'colored 80-byte lines (4 SGR each)',
  script: (bytes) => `yes $'${COLORED_LINE.replaceAll('\x1b', '\\e').slice(0, -1)}' | head -c ${bytes}`,
  lines: (bytes) => Math.ceil(bytes / 80),
};

export const SHAPES: readonly Shape[] = [LONG, LOG, SHORT];

export const mib = (bytes: number): string => `${+(bytes / MiB).toFixed(2)} MiB`;

/** What each shape's command repeats. */
const OUTPUT_UNITS: Readonly<Record<Shape['key'], string>> = {
  long: 'a',
  log: `${'x'.repeat(79)}\n`,
  short: 'y\n',
  colored: COLORED_LINE,
};

/** The bytes of `bytes` of a shape's output, as the command writes them. */
export function output(shape: Shape, bytes: number): Buffer {
  const unit = OUTPUT_UNITS[shape.key];
  return Buffer.from(unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes), 'latin1');
}
