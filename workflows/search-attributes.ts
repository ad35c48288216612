import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Attributes that make the inbox one visibility query: "what waits on whom", and what it asks.
// Every one is set in the same upsert as the others, so the inbox costs no extra history events.
export const A2aAgent = defineSearchAttributeKey('A2aAgent', SearchAttributeType.KEYWORD);
export const A2aTaskId = defineSearchAttributeKey('A2aTaskId', SearchAttributeType.KEYWORD);
export const A2aTaskState = defineSearchAttributeKey('A2aTaskState', SearchAttributeType.KEYWORD);
/** `human` (INPUT_REQUIRED), `operator` (AUTH_REQUIRED) or `none`. */
export const PlannerWaitingOn = defineSearchAttributeKey('PlannerWaitingOn', SearchAttributeType.KEYWORD);
export const PlanId = defineSearchAttributeKey('PlanId', SearchAttributeType.KEYWORD);
/** The plan step a delegated task runs. */
export const PlanStep = defineSearchAttributeKey('PlanStep', SearchAttributeType.KEYWORD);
/** The question or the approval request, clipped to WAIT_TEXT_MAX characters (the status query has it whole). */
export const PlannerWaitText = defineSearchAttributeKey('PlannerWaitText', SearchAttributeType.TEXT);
/** The question turn an answer must name. */
export const PlannerTurn = defineSearchAttributeKey('PlannerTurn', SearchAttributeType.INT);
/** Since when the task waits (the agent's status time, else the workflow's). */
export const PlannerWaitingSince = defineSearchAttributeKey('PlannerWaitingSince', SearchAttributeType.DATETIME);

/** Visibility stores keep values of a few KB; the inbox shows a line or two. */
export const WAIT_TEXT_MAX = 1000;

export const plannerSearchAttributes = [A2aAgent, A2aTaskId, A2aTaskState, PlannerWaitingOn, PlanId, PlanStep, PlannerWaitText, PlannerTurn, PlannerWaitingSince];

/** The CLI's `--search-attribute NAME=TYPE` type names. */
export const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<string, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DATETIME]: 'Datetime',
};
