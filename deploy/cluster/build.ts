// `npx tsx deploy/cluster/build.ts`: finds or builds the cluster's binaries in the user cache
// (Temporal server, temporal-sql-tool, the Temporal CLI, the UI server) and the server module's
// schema files. scripts/test.sh runs it before jest; fast when the cache holds them.
import { ensureClusterBinaries } from './up';

if (require.main === module) {
  const started = Date.now();
  ensureClusterBinaries((line) => console.error(line))
    .then((b) => {
      console.error(`Cluster binaries ready in ${Math.round((Date.now() - started) / 1000)} s: ${b.binaries.server}, ${b.binaries.sqlTool}${b.ui ? `, ${b.ui}` : ' (no UI server)'}`);
    })
    .catch((err: unknown) => {
      console.error(`cluster binaries: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
