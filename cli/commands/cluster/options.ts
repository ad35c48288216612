// The options every `planner cluster` verb shares, parsed into deploy/cluster's ClusterOptions.
import type { ClusterOptions } from '../../../deploy/cluster/state';
import { UsageError } from '../../errors';

export const count = (flag: string) => (raw: string): number => {
  if (!/^\d{1,3}$/.test(raw)) throw new UsageError(`bad ${flag} ${JSON.stringify(raw)}: a whole number from 0`);
  return Number(raw);
};

export function clusterOptions(o: { dir?: string; workers?: number; servers?: number; ui?: boolean }): ClusterOptions {
  return {
    ...(o.dir ? { dir: o.dir } : {}),
    ...(o.workers !== undefined ? { workers: o.workers } : {}),
    ...(o.servers !== undefined ? { servers: o.servers } : {}),
    ...(o.ui === false ? { ui: false } : {}),
  };
}

/** deploy/cluster is heavy (it builds and starts servers): loaded only when a cluster verb runs. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, like planner dev
export const deployCluster = () => ({ ...(require('../../../deploy/cluster/up') as typeof import('../../../deploy/cluster/up')), ...(require('../../../deploy/cluster/down') as typeof import('../../../deploy/cluster/down')), ...(require('../../../deploy/cluster/status') as typeof import('../../../deploy/cluster/status')) });
