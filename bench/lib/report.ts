import { type Summary, summarize } from './stats.js';

/** One side of a pair: what was measured and its samples' summary. */
export interface Side {
  readonly label: string;
  readonly summary: Summary;
  /** Which statistic the row compares (median unless said otherwise). */
  readonly stat?: 'median' | 'p99' | 'max';
}

export interface Row {
  readonly suite: string;
  readonly name: string;
  readonly unit: string;
  readonly a: Side;
  readonly b?: Side;
  /** The compared ratio (its meaning is in `ratioLabel`). */
  readonly ratio?: number;
  readonly ratioLabel?: string;
  /** Spread of the per-repetition (paired) ratios, when the ratio is their median. */
  readonly ratioSpread?: { readonly min: number; readonly max: number };
  readonly target: string;
  /** null: no target for this row (informational). */
  readonly met: boolean | null;
  readonly note?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The ratio fields of a row whose ratio is the median of per-repetition A/B ratios. */
export function pairedRatio(ratios: Summary): Pick<Row, 'ratio' | 'ratioSpread' | 'ratioLabel'> {
  return { ratio: ratios.median, ratioSpread: ratios, ratioLabel: 'A/B' };
}

/** Samples of one side, in the order of the pairs they were taken in. */
export interface SideSamples {
  readonly label: string;
  readonly samples: readonly number[];
}

/**
 * An informational row (no target) of two sides measured in alternating pairs: each side's summary, and the median
 * and spread of the per-pair ratios A/B.
 */
export function pairedInfoRow(suite: string, name: string, unit: string, a: SideSamples, b: SideSamples): Row {
  return {
    suite,
    name,
    unit,
    a: { label: a.label, summary: summarize(a.samples) },
    b: { label: b.label, summary: summarize(b.samples) },
    ...pairedRatio(summarize(a.samples.map((value, i) => value / (b.samples[i] as number)))),
    target: '—',
    met: null,
  };
}

export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const d = digits ?? (abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
  return value.toFixed(d);
}

function ratioText(r: Row): string {
  if (r.ratio === undefined) return '';
  const spread = r.ratioSpread ? ` [${fmt(r.ratioSpread.min, 2)}–${fmt(r.ratioSpread.max, 2)}]` : '';
  return `${fmt(r.ratio, 2)}${spread}${r.ratioLabel ? ` ${r.ratioLabel}` : ''}`;
}

function side(s: Side | undefined): string {
  if (s === undefined) return '';
  const { summary } = s;
  const stat = s.stat ?? 'median';
  const main = fmt(summary[stat]);
  const spread = summary.n > 1 ? ` [${fmt(summary.min)}–${fmt(summary.max)}]` : '';
  return `${stat === 'median' ? '' : `${stat} `}${main}${spread} n=${summary.n}`;
}

export function verdict(met: boolean | null): string {
  return met === null ? 'info' : met ? 'target met' : 'target MISSED';
}

/** One row's cells, in the column order of both tables. */
function cellsOf(r: Row): string[] {
  return [
    r.suite,
    r.name,
    r.unit,
    `${r.a.label}: ${side(r.a)}`,
    r.b ? `${r.b.label}: ${side(r.b)}` : '',
    ratioText(r),
    r.target,
    verdict(r.met),
  ];
}

/** A plain-text table: one row per measured pair. */
export function table(rows: readonly Row[]): string {
  const header = ['suite', 'case', 'unit', 'A', 'B', 'ratio', 'target', 'verdict'];
  const cells = rows.map(cellsOf);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}

/** The same rows as a Markdown table (for docs/PERFORMANCE.md). */
export function markdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = ['| suite | case | unit | A | B | ratio | target | verdict |', '|---|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    out.push(`| ${cellsOf(r).map(esc).join(' | ')} |`);
  }
  return out.join('\n');
}
