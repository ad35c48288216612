// The shared runner of the benchmarks: statistics, A/B interleaving, the markdown table, the JSON
// record under bench/results/, and SVG charts (vega-lite compiled and rendered by vega in Node).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** BENCH_SCALE multiplies every default size (counts); 0.1 for development, 10 for the large runs. */
export const SCALE = Number(process.env.BENCH_SCALE ?? 1);
if (!(SCALE > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);

/** A size: the env override if given, else the default times BENCH_SCALE (at least `min`). */
export function size(envName: string, def: number, min = 1): number {
  const raw = process.env[envName];
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${envName} must be a number, got ${raw}`);
    return n;
  }
  return Math.max(min, Math.round(def * SCALE));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile. */
export function pct(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Dist {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function dist(xs: readonly number[]): Dist {
  return {
    n: xs.length,
    p50: pct(xs, 50),
    p95: pct(xs, 95),
    p99: pct(xs, 99),
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN,
    min: xs.length ? Math.min(...xs) : NaN,
    max: xs.length ? Math.max(...xs) : NaN,
  };
}

/**
 * Runs the sides in turn (A B C, then B C A, ...), `n` times each, so that drift of a shared
 * machine falls on every side and none always follows another. Results come back per side.
 */
export async function interleaveMany<T>(n: number, sides: ((i: number) => Promise<T>)[]): Promise<T[][]> {
  const out = sides.map(() => [] as T[]);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < sides.length; k++) {
      const j = (k + i) % sides.length;
      out[j]!.push(await sides[j]!(i));
    }
  }
  return out;
}

/** Two sides, A B then B A: see interleaveMany. */
export async function interleave<T>(n: number, a: (i: number) => Promise<T>, b: (i: number) => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const [xa, xb] = await interleaveMany(n, [a, b]);
  return { a: xa!, b: xb! };
}

/** Runs `task` over `items` with at most `limit` in flight; returns results in input order. */
export async function pool<I, O>(items: readonly I[], limit: number, task: (item: I, index: number) => Promise<O>): Promise<O[]> {
  const results = new Array<O>(items.length);
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

/** Polls `probe` until it is true; throws after `timeoutMs` naming `what`. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------
// The record: rows for the markdown table, raw data for the JSON and the charts.

export interface Row {
  section: string;
  metric: string;
  unit: string;
  planner: number | string;
  baseline?: number | string;
  /** planner / baseline, when both are numbers (or a ratio given explicitly). */
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}

export class Record {
  readonly rows: Row[] = [];
  readonly data: Record_Data = {};
  readonly startedAt = new Date();
  readonly timings: { [section: string]: number } = {};
  /** The machine's speed (bench/lib/machine-speed.ts) at the start and after each section. */
  readonly speed: { at: string; ms: number }[] = [];

  add(row: Row): void {
    if (row.ratio === undefined && typeof row.planner === 'number' && typeof row.baseline === 'number' && row.baseline !== 0) {
      row.ratio = row.planner / row.baseline;
    }
    this.rows.push(row);
  }

  /** The table printed at the end and copied into docs/benchmarks.md. */
  markdown(): string {
    const lines = ['| section | figure | planner | baseline | ratio | goal |', '|---|---|---|---|---|---|'];
    for (const r of this.rows) {
      const goal = r.goal ? `${r.goal} ${r.met === undefined ? '' : r.met ? '✅' : '❌'}`.trim() : '';
      lines.push(
        `| ${r.section} | ${r.metric}${r.note ? ` (${r.note})` : ''} | ${fmt(r.planner, r.unit)} | ${r.baseline === undefined ? '' : fmt(r.baseline, r.unit)} | ${r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`} | ${goal} |`,
      );
    }
    return lines.join('\n');
  }
}

// Raw data per section (latency samples, memory curves, histories' breakdowns).
export type Record_Data = { [key: string]: unknown };

export function fmt(v: number | string, unit: string): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return `— ${unit}`;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })} ${unit}`.trim();
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memGiB: number;
  node: string;
  loadavgAtStart: number[];
  commit: string;
  branch: string;
  scale: number;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function machine(): Machine {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    loadavgAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
    commit: git(['rev-parse', '--short', 'HEAD']),
    branch: git(['rev-parse', '--abbrev-ref', 'HEAD']),
    scale: SCALE,
  };
}

/** Writes bench/results/<date>-<commit>.json; returns its path. */
export function writeResults(record: Record, m: Machine): string {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const date = record.startedAt.toISOString().replace(/[:]/g, '').replace(/\..*$/, 'Z');
  const path = join(dir, `${date}-${m.commit}.json`);
  writeFileSync(path, `${JSON.stringify({ machine: m, startedAt: record.startedAt, timings: record.timings, speed: record.speed, rows: record.rows, data: record.data }, null, 1)}\n`);
  return path;
}

// ---------------------------------------------------------------------------------------------
// Charts: a vega-lite spec compiled to vega and rendered to SVG in Node, no browser.

export async function renderSvg(spec: object, path: string): Promise<void> {
  // vega-lite ships ESM types this project's `moduleResolution: node` cannot see; the API used is small.
  const load = (name: string): Promise<unknown> => import(name);
  const vl = (await load('vega-lite')) as { compile(spec: object): { spec: object } };
  const vega = await import('vega');
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled as Parameters<typeof vega.parse>[0]), { renderer: 'none' });
  writeFileSync(path, `${await view.toSVG()}\n`);
  view.finalize();
}
