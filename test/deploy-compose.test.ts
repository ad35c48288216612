// docker-compose.yml cannot run here (no Docker engine), so it is kept equivalent to `planner
// cluster up` by reading both from one place: deploy/cluster/settings.ts. Same versions, same
// databases and schema folders, same namespace and search attributes, same dynamic config, the
// same planner environment; and the Dockerfile is multi-stage, non-root, production deps only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  DATABASES,
  DYNAMIC_CONFIG,
  NAMESPACE,
  NAMESPACE_RETENTION,
  NUM_HISTORY_SHARDS,
  plannerProcessEnv,
  POSTGRES_MAJOR,
  SCHEMA_DIRS,
  SEARCH_ATTRIBUTES,
  SQL_PLUGIN,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  WORKER_ENV_NAMES,
} from '../deploy/cluster/settings';
import { dynamicConfigYaml, temporalServiceConfig } from '../deploy/cluster/temporal-config';
import { DEFAULT_PORTS } from '../deploy/cluster/settings';
import { plannerSearchAttributes } from '../workflows/search-attributes';

const ROOT = join(__dirname, '..');
interface Service {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string>;
  volumes?: string[];
  user?: string;
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const svc = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const script = (s: Service): string => (Array.isArray(s.command) ? s.command.join('\n') : (s.command ?? ''));

describe('docker-compose.yml agrees with planner cluster up', () => {
  it('runs the same versions', () => {
    expect(svc('temporal').image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    expect(svc('temporal-schema').image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    expect(svc('temporal-namespace').image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    expect(svc('temporal-ui').image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
    expect(svc('postgresql').image).toBe(`postgres:${POSTGRES_MAJOR}`);
  });

  it('sets up and upgrades the same databases from the same schema folders', () => {
    const s = script(svc('temporal-schema'));
    expect(svc('temporal-schema').environment?.SQL_PLUGIN).toBe(SQL_PLUGIN);
    for (const db of Object.values(DATABASES)) expect(s).toContain(db);
    expect(s).toContain(`--database ${DATABASES.temporal} update-schema -d /etc/temporal/${SCHEMA_DIRS.temporal}`);
    expect(s).toContain(`--database ${DATABASES.visibility} update-schema -d /etc/temporal/${SCHEMA_DIRS.visibility}`);
    const env = svc('temporal').environment!;
    expect(env).toMatchObject({ DB: SQL_PLUGIN, DBNAME: DATABASES.temporal, VISIBILITY_DBNAME: DATABASES.visibility, NUM_HISTORY_SHARDS: String(NUM_HISTORY_SHARDS) });
    const generated = temporalServiceConfig({ ports: DEFAULT_PORTS, pgPassword: 'x', dir: '/c' }, 'frontend') as { persistence: { numHistoryShards: number } };
    expect(generated.persistence.numHistoryShards).toBe(NUM_HISTORY_SHARDS);
  });

  it('registers the same namespace and every search attribute with its type', () => {
    const s = script(svc('temporal-namespace'));
    expect(s).toContain(`temporal operator namespace create --namespace ${NAMESPACE} --retention ${NAMESPACE_RETENTION}`);
    expect(SEARCH_ATTRIBUTES.map((a) => a.name)).toEqual(plannerSearchAttributes.map((k) => k.name));
    expect(s).toContain(`--namespace ${NAMESPACE} ${SEARCH_ATTRIBUTES.map((a) => `--name ${a.name} --type ${a.type}`).join(' ')}`);
  });

  it('gives the server the same dynamic config', () => {
    const mounted = svc('temporal').volumes!.find((v) => v.includes('dynamicconfig'))!.split(':')[0]!;
    expect(readFileSync(join(ROOT, mounted), 'utf8')).toBe(dynamicConfigYaml());
    expect(Object.keys(parse(dynamicConfigYaml()) as object)).toEqual(Object.keys(DYNAMIC_CONFIG));
  });

  it('gives the worker and planner serve the same environment as the cluster script', () => {
    const worker = svc('worker').environment!;
    for (const name of WORKER_ENV_NAMES) expect(Object.keys(worker)).toContain(name);
    const local = plannerProcessEnv({ frontend: 'x:1', blobDir: '/b', bundle: '/w.js', uiUrl: 'http://u' });
    for (const name of Object.keys(local)) {
      expect(Object.keys(worker)).toContain(name);
      expect(Object.keys(svc('serve').environment!)).toContain(name);
    }
    expect(worker.TEMPORAL_NAMESPACE).toBe(local.TEMPORAL_NAMESPACE);
    expect(worker.PLANNER_TASK_QUEUE).toBe(local.PLANNER_TASK_QUEUE);
    expect(svc('worker').command).toEqual(['worker']);
    expect((svc('serve') as { entrypoint?: string[] }).entrypoint).toEqual(['node', '--require', 'tsx/cjs', 'server/main.ts']);
    expect(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')).toContain('COPY server ./server');
  });

  it('builds the planner from a multi-stage, non-root Dockerfile with the workflow bundle prebuilt', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    const bundle = svc('worker').environment!.PLANNER_WORKFLOW_BUNDLE!;
    expect(dockerfile).toContain(`COPY --from=build /app/dist/workflow-bundle.js ${bundle}`);
    // The runtime stage runs on jemalloc (worker/allocator.ts): installed, and preloaded from where it was linked.
    const preload = /^ENV LD_PRELOAD=(\S+)$/m.exec(dockerfile.split(/^FROM .* AS runtime$/m)[1] ?? '')?.[1];
    expect(preload).toMatch(/libjemalloc\.so\.2$/);
    expect(dockerfile).toMatch(/apt-get install [^\n]*libjemalloc2/);
    expect(dockerfile).toContain(` ${preload}`);
  });
});
