// planner plan check: validate a plan file without starting anything.
import { Command } from '@commander-js/extra-typings';
import { checkPlanSource, InvalidPlanError } from '../../../client/plan';
import { UsageError } from '../../errors';
import { keyValue } from '../../flags';
import { examples } from '../../help';
import { outputOption, print } from '../../output';

export function planCheckCommand() {
  return new Command('check')
    .description('validate a plan file without starting it')
    .argument('<PLAN_FILE>', 'the plan file (YAML or JSON)')
    .option('--input <NAME=VALUE>', 'check these inputs too (repeatable); with it, every required input must be given', keyValue('--input'))
    .addOption(outputOption())
    .addHelpText('after', '\nPrints the steps and what each waits for (-o json: {file, name, steps: [{id, agent, dependsOn}]}).\nA problem is named with its field and line (exit 2).')
    .addHelpText('after', examples('planner plan check demo/plans/release.yaml', 'planner plan check release.yaml --input build=2026.10.07-2'))
    .action((file, { input, output }) => {
      let plan;
      try {
        ({ plan } = checkPlanSource({ planFile: file }, { inputs: input, requireInputs: input !== undefined }));
      } catch (e) {
        if (e instanceof InvalidPlanError) throw new UsageError(e.message);
        throw e;
      }
      const checked = { file, name: plan.name, steps: plan.steps.map((s) => ({ id: s.id, agent: s.agent, dependsOn: s.dependsOn })) };
      print(output, checked, (c) =>
        [
          `${c.file}: plan ${c.name} is valid: ${c.steps.length} step${c.steps.length === 1 ? '' : 's'}`,
          ...c.steps.map((step) => `  ${step.id} (${step.agent})${step.dependsOn.length ? ` after ${step.dependsOn.join(', ')}` : ''}`),
        ].join('\n'),
      );
    });
}
