// planner artifact: one artifact of a completed delegated task, through the claim-check codec, so
// an artifact kept in the blob store comes back whole.
import { writeFile } from 'node:fs/promises';
import { Command } from '@commander-js/extra-typings';
import { readArtifact, type ArtifactContent } from '../../client/artifact';
import { examples } from '../help';
import { withClient } from '../temporal';

export function artifactCommand() {
  return new Command('artifact')
    .description('write one artifact of a completed delegated task to stdout or a file')
    .argument('<WORKFLOW_ID>', 'the completed task')
    .argument('<NAME>', "the artifact's name (or its artifactId)")
    .option('--out <FILE>', 'write it to FILE instead of stdout')
    .addHelpText('after', '\nText parts are written as UTF-8, raw (file) parts as their bytes, data parts as JSON, in order.')
    .addHelpText(
      'after',
      examples(
        'planner artifact task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44 review.json',
        'planner artifact task-deployer-0b7e6c1d-2a4f-4c3b-8e9d-5f6a7b8c9d0e deploy-result.json --out deploy.json',
      ),
    )
    .action(async (workflowId, name, { out }) => {
      await withClient(async (client) => {
        await writeArtifact(await readArtifact(client, workflowId, name), out);
      });
    });
}

/** The bytes to `file`, or to stdout. */
async function writeArtifact(content: ArtifactContent, file: string | undefined): Promise<number> {
  if (file !== undefined) {
    await writeFile(file, content.bytes);
    process.stderr.write(`wrote ${content.bytes.length} bytes of ${content.name ?? content.artifactId} to ${file}\n`);
    return 0;
  }
  await new Promise<void>((resolve, reject) => process.stdout.write(content.bytes, (err) => (err ? reject(err) : resolve())));
  return 0;
}
