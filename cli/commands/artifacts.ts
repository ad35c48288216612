// planner artifacts: every artifact of a plan's completed steps (or of one delegated task) written
// to files, read through the claim-check codec so artifacts kept in the blob store come back whole.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { Client } from '@temporalio/client';
import type { Artifact } from '../../a2a/schema';
import type { DelegatedTaskWorkflow } from '../../workflows/delegated-task/workflow';
import { contentOf } from '../../client/artifact';
import { describePlan } from '../../client/plan';
import { CliFailure } from '../errors';
import { examples } from '../help';
import { out, outputOption, printJson } from '../output';
import { withClient } from '../temporal';
import { workflowKind } from '../workflow-kind';

export function artifactsCommand() {
  return new Command('artifacts')
    .description("write the artifacts of a plan's completed steps (or of a completed delegated task) to files")
    .argument('<PLAN_OR_WORKFLOW_ID>', 'a plan id, or a delegated task workflow id')
    .option('--out <DIR>', 'the folder to write into (created if missing)', '.')
    .addOption(outputOption())
    .addHelpText('after', '\nA plan\'s artifacts go to DIR/<step>/<name>, a task\'s to DIR/<name>; prints each path and size\n(-o json: [{file, bytes}]). For one artifact to stdout, use `planner artifact`.')
    .addHelpText('after', examples('planner artifacts plan-release-1a2b3c4d --out out/', 'planner artifacts task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44'))
    .action(async (id, { out: dir, output }) => {
      await withClient(async (client) => {
        const { kind, desc } = await workflowKind(client, id);
        const sets: Array<[folder: string, artifacts: Artifact[]]> = [];
        if (kind === 'task') {
          if (desc.status.name !== 'COMPLETED') throw new CliFailure(`${id} is ${desc.status.name}, not COMPLETED: it has no artifacts to write`);
          sets.push([dir, await taskArtifacts(client, id)]);
        } else {
          const plan = await describePlan(client, id);
          for (const step of plan.steps ?? []) {
            if (step.state === 'completed' && step.workflowId) sets.push([join(dir, step.id), await taskArtifacts(client, step.workflowId)]);
          }
          if (sets.length === 0) throw new CliFailure(`plan ${id} has no completed step yet, so no artifacts`);
        }
        const written: Array<{ file: string; bytes: number }> = [];
        for (const [folder, artifacts] of sets) {
          await mkdir(folder, { recursive: true });
          for (const a of artifacts) {
            const file = join(folder, fileName(a));
            const bytes = contentOf(a);
            await writeFile(file, bytes);
            if (output === 'text') out(`${file}  ${bytes.length} bytes`);
            written.push({ file, bytes: bytes.length });
          }
        }
        if (output === 'json') printJson(written);
        else if (written.length === 0) out('no artifacts');
      });
    });
}

async function taskArtifacts(client: Client, workflowId: string): Promise<Artifact[]> {
  const result = await client.workflow.getHandle<typeof DelegatedTaskWorkflow>(workflowId).result();
  return result.artifacts ?? [];
}

/** The artifact's name as a file name: no folders, nothing hidden. */
function fileName(a: Artifact): string {
  const name = (a.name ?? a.artifactId).replace(/[/\\]/g, '_').replace(/^\.+/, '_');
  return name === '' ? a.artifactId : name;
}
