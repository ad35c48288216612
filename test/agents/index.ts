// The suites' agents: the demo's code-reviewer and deployer (demo/agents/), and a test-only exporter.
import { startAgent, type AgentHandle, type AgentOptions } from '../../demo/agents';
import { exporterSpec } from './exporter';

export * from '../../demo/agents';
export { EXPORT_ARTIFACT, exportBytes } from './exporter';

/** artifactBytes (default 1 KiB): the size of the one binary artifact, export.bin, it completes with. */
export function startExporter(opts: AgentOptions & { artifactBytes?: number } = {}): Promise<AgentHandle> {
  const { artifactBytes = 1024, ...agentOptions } = opts;
  return startAgent(exporterSpec(artifactBytes), agentOptions);
}
