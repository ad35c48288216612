// The Temporal server's configuration for a local cluster, generated from the shipped
// config/development-postgres12.yaml: one file per service (`--env <service>`), because every
// process of one host needs its own metrics port, and all of them share the databases, the
// membership table and the dynamic config file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DATABASES, DB_USER, DYNAMIC_CONFIG, MEMBERSHIP_OFFSET, NUM_HISTORY_SHARDS, SQL_PLUGIN, TEMPORAL_SERVICES, type ClusterPorts, type TemporalService } from './settings';

export interface TemporalConfigInput {
  ports: ClusterPorts;
  pgPassword: string;
  /** Folder for the generated files (`<dir>/<service>.yaml`, `<dir>/dynamicconfig.yaml`). */
  dir: string;
}

function sqlStore(database: string, ports: ClusterPorts, password: string, maxConns: number): Record<string, unknown> {
  return {
    sql: {
      pluginName: SQL_PLUGIN,
      databaseName: database,
      connectAddr: `127.0.0.1:${ports.postgres}`,
      connectProtocol: 'tcp',
      user: DB_USER,
      password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

export function servicePort(ports: ClusterPorts, service: TemporalService): number {
  return ports[service];
}

/** The server config for one service's process, as an object (yaml-ready). */
export function temporalServiceConfig(input: TemporalConfigInput, service: TemporalService): Record<string, unknown> {
  const { ports, pgPassword } = input;
  const metricsPort = ports.serverMetrics + TEMPORAL_SERVICES.indexOf(service);
  const services = Object.fromEntries(
    TEMPORAL_SERVICES.map((s) => [
      s,
      {
        rpc: {
          grpcPort: servicePort(ports, s),
          membershipPort: servicePort(ports, s) + MEMBERSHIP_OFFSET,
          bindOnLocalHost: true,
          ...(s === 'frontend' ? { httpPort: ports.frontendHttp } : {}),
        },
      },
    ]),
  );
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: NUM_HISTORY_SHARDS,
      datastores: {
        'postgres-default': sqlStore(DATABASES.temporal, ports, pgPassword, 20),
        'postgres-visibility': sqlStore(DATABASES.visibility, ports, pgPassword, 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${metricsPort}` } },
    },
    services,
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    // The shipped file enables archival to /tmp; a production-shaped stack keeps it off until configured.
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    publicClient: { hostPort: `127.0.0.1:${ports.frontend}` },
    dynamicConfigClient: { filepath: join(input.dir, 'dynamicconfig.yaml'), pollInterval: '10s' },
  };
}

/** The dynamic config file: each key as the server's list-of-constrained-values form. */
export function dynamicConfigYaml(): string {
  return stringify(Object.fromEntries(Object.entries(DYNAMIC_CONFIG).map(([k, v]) => [k, [{ value: v, constraints: {} }]])));
}

/** Writes every service's file and the dynamic config; returns the folder (the server's --config). */
export function writeTemporalConfig(input: TemporalConfigInput): string {
  mkdirSync(input.dir, { recursive: true, mode: 0o700 });
  for (const service of TEMPORAL_SERVICES) {
    // The database password is in these files: readable by the owner only.
    writeFileSync(join(input.dir, `${service}.yaml`), stringify(temporalServiceConfig(input, service)), { mode: 0o600 });
  }
  writeFileSync(join(input.dir, 'dynamicconfig.yaml'), dynamicConfigYaml(), { mode: 0o600 });
  return input.dir;
}
