// The charts under docs/: vega-lite specs over the run's raw data, rendered to SVG by vega in Node.
import { join } from 'node:path';
import type { MemorySample } from './parked';
import type { SeedSample } from './seed';
import { ROOT, renderSvg, type Record } from './lib/runner';

const DOCS = join(ROOT, 'docs');

export async function drawCharts(record: Record): Promise<string[]> {
  const written: string[] = [];
  const seed = record.data.seed as SeedSample[] | undefined;
  if (seed?.length) {
    const path = join(DOCS, 'bench-seed-latency.svg');
    await renderSvg(
      {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: 'Seed scenario (review + answer, deploy + approval), end to end',
        data: { values: seed.map((s) => ({ ...s, work: `${s.workMs} ms agent work per step` })) },
        facet: { column: { field: 'work', type: 'nominal', title: null } },
        spec: {
          width: 220,
          height: 260,
          layer: [
            { mark: { type: 'boxplot', extent: 'min-max', opacity: 0.5 }, encoding: { x: { field: 'side', type: 'nominal', title: null }, y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { zero: true } }, color: { field: 'side', type: 'nominal', legend: null } } },
            { mark: { type: 'point', filled: true, size: 14, opacity: 0.6 }, encoding: { x: { field: 'side', type: 'nominal' }, xOffset: { field: 'i', type: 'quantitative', scale: { domain: [0, seed.length] } }, y: { field: 'ms', type: 'quantitative' }, color: { field: 'side', type: 'nominal' } } },
          ],
        },
        resolve: { scale: { y: 'independent' } },
      },
      path,
    );
    written.push(path);
  }
  const resume = record.data.resume as { planner: { [k: string]: number[] }; baseline: { [k: string]: number[] } } | undefined;
  if (resume) {
    const names: { [k: string]: string } = { observe: 'approval → resume seen', complete: 'approval → completed', receipt: 'answer → agent receipt' };
    const values = (['planner', 'baseline'] as const).flatMap((side) => Object.entries(resume[side]).flatMap(([k, xs]) => xs.map((ms) => ({ side, what: names[k] ?? k, ms }))));
    const path = join(DOCS, 'bench-resume-latency.svg');
    await renderSvg(
      {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: 'Resume latency: cumulative distribution',
        data: { values },
        transform: [
          { window: [{ op: 'cume_dist', as: 'fraction' }], sort: [{ field: 'ms' }], groupby: ['side', 'what'] },
        ],
        facet: { column: { field: 'what', type: 'nominal', title: null } },
        spec: {
          width: 220,
          height: 220,
          mark: { type: 'line', interpolate: 'step-after' },
          encoding: {
            x: { field: 'ms', type: 'quantitative', title: 'ms', scale: { type: 'symlog' } },
            y: { field: 'fraction', type: 'quantitative', title: 'fraction of events' },
            color: { field: 'side', type: 'nominal' },
          },
        },
      },
      path,
    );
    written.push(path);
  }
  const parked = record.data.parked as { n: number; samples: MemorySample[] } | undefined;
  if (parked?.samples.length) {
    const values = parked.samples.flatMap((s) => [
      { s: s.s, phase: s.phase, parked: s.parked, process: 'worker', MiB: s.workerMiB },
      { s: s.s, phase: s.phase, parked: s.parked, process: 'Temporal dev server', MiB: s.serverMiB },
    ]);
    const path = join(DOCS, 'bench-parked-memory.svg');
    await renderSvg(
      {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: `${parked.n} parked tasks (½ INPUT_REQUIRED, ½ AUTH_REQUIRED): resident memory`,
        data: { values },
        vconcat: [
          {
            width: 520,
            height: 220,
            mark: { type: 'line', point: { size: 12 } },
            encoding: {
              x: { field: 'parked', type: 'quantitative', title: 'tasks parked (alerted)' },
              y: { field: 'MiB', type: 'quantitative', title: 'RSS (MiB)' },
              color: { field: 'process', type: 'nominal' },
              shape: { field: 'phase', type: 'nominal' },
            },
          },
          {
            width: 520,
            height: 160,
            mark: 'line',
            encoding: {
              x: { field: 's', type: 'quantitative', title: 'seconds since the first start (parking, parked, resuming)' },
              y: { field: 'MiB', type: 'quantitative', title: 'RSS (MiB)' },
              color: { field: 'process', type: 'nominal' },
            },
          },
        ],
      },
      path,
    );
    written.push(path);
  }
  return written;
}
