// What the plan's steps start from: PlanWorkflow's input checked on entry (the same checks a plan
// file passes before it is started), each step's DelegatedTaskWorkflow input rendered from it and
// from earlier steps' outputs, and the one-line summary the Temporal UI shows for a step's task.
// Deterministic code only; the zod schemas are required only for input not parsed at the edge
// (check-input.ts, workflows/schemas.ts).
import { ApplicationFailure } from '@temporalio/workflow';
import { describeIssues } from '../../a2a/validate';
import { checkPlan, resolveInputs } from './check';
import type { PlanRunInput, Step } from './input';
import { render, renderData, type StepOutput } from './template';
import type { DelegatedTaskInput } from '../delegated-task/input';
import { checkDelegatedTaskInput } from '../delegated-task/check';
import { planSchemas } from '../schemas';
import { alreadyParsedPlanInput } from './check-input';
import { POLICY_DEFAULTS, WATCH_DEFAULTS } from '../delegated-task/defaults';

/** PlanWorkflow's input, parsed (defaults filled in) and checked, or the InvalidPlan failure saying what is wrong. */
export function parseInput(raw: PlanRunInput): PlanRunInput {
  const invalid = (why: string): never => {
    throw ApplicationFailure.create({ type: 'InvalidPlan', nonRetryable: true, message: `invalid PlanWorkflow input: ${why}` });
  };
  const input = alreadyParsedPlanInput(raw) ?? parseWithSchema(raw, invalid);
  const problems = [...checkPlan(input.plan), ...resolveInputs(input.plan, input.inputs).problems];
  if (problems.length > 0) invalid(problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '));
  for (const [name, agent] of Object.entries(input.plan.agents)) {
    if (typeof agent.card === 'string') invalid(`agents.${name}.card: a card file must be read before the plan starts (the workflow reads no files)`);
  }
  return input;
}

function parseWithSchema(raw: PlanRunInput, invalid: (why: string) => never): PlanRunInput {
  const parsed = planSchemas().PlanRunInputSchema.safeParse(raw);
  return parsed.success ? parsed.data : invalid(describeIssues(parsed.error, raw));
}

/** The DelegatedTaskWorkflow input for a step, its message rendered from inputs and earlier outputs. */
export function taskInput(input: PlanRunInput, step: Step, planId: string, outputs: Record<string, StepOutput | undefined>): DelegatedTaskInput {
  const ctx = { inputs: input.inputs, steps: outputs };
  const agent = input.plan.agents[step.agent]!;
  const raw: DelegatedTaskInput = {
    agent: {
      name: step.agent,
      ...(agent.url ? { url: agent.url } : {}),
      ...(agent.card && typeof agent.card === 'object' ? { card: agent.card } : {}),
      ...(agent.binding ? { binding: agent.binding } : {}),
      ...(agent.a2aVersion ? { a2aVersion: agent.a2aVersion } : {}),
      ...(agent.credentialEnv ? { credentialEnv: agent.credentialEnv } : {}),
      ...(agent.callerNamed ? { callerNamed: true as const } : {}),
      ...(agent.callTimeout !== undefined ? { callTimeout: agent.callTimeout } : {}),
    },
    message: {
      ...(step.text !== undefined ? { text: render(step.text, ctx) } : {}),
      ...(step.data !== undefined ? { data: renderData(step.data, ctx) } : {}),
    },
    planId,
    stepId: step.id,
    // Every default filled in, in the schema's order: the input DelegatedTaskInputSchema would
    // output, which the child's plain check takes as it is (no zod in either workflow).
    policies: {
      ...(step.deadlines?.input ? { input: step.deadlines.input } : {}),
      ...(step.deadlines?.auth ? { auth: step.deadlines.auth } : {}),
      working: step.deadlines?.working ?? { ...POLICY_DEFAULTS.working },
      ...(step.deadlines?.total ? { total: step.deadlines.total } : {}),
      maxAuthRounds: step.maxAuthRounds ?? POLICY_DEFAULTS.maxAuthRounds,
      watch: step.watch ?? { ...WATCH_DEFAULTS },
      sendTimeout: step.sendTimeout ?? POLICY_DEFAULTS.sendTimeout,
      historyBudget: POLICY_DEFAULTS.historyBudget,
      onAmbiguousSend: POLICY_DEFAULTS.onAmbiguousSend,
    },
  };
  // The child starts with fully parsed input, like every delegated task.
  const checked = checkDelegatedTaskInput(raw);
  if (!checked.ok) throw ApplicationFailure.create({ type: 'InvalidInput', nonRetryable: true, message: `step ${step.id}: ${checked.problem}` });
  return checked.task;
}

/**
 * A delegated task in one line: its agent and its message's first line, clipped to `width`
 * characters. A step's summary uses 100 (the plan's name and the step's id come before it); the
 * summary is part of the recorded start command, so the width stays what it was recorded with.
 */
export function summaryLine(input: DelegatedTaskInput, width = 100): string {
  const first = (input.message.text ?? JSON.stringify(input.message.data) ?? '').split('\n')[0]!.trim();
  return `${input.agent.name}: ${first.length > width ? `${first.slice(0, width - 3)}...` : first}`;
}
