import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Keyword attributes that make the inbox a visibility query: "what waits on whom".
export const A2aAgent = defineSearchAttributeKey('A2aAgent', SearchAttributeType.KEYWORD);
export const A2aTaskId = defineSearchAttributeKey('A2aTaskId', SearchAttributeType.KEYWORD);
export const A2aTaskState = defineSearchAttributeKey('A2aTaskState', SearchAttributeType.KEYWORD);
/** `human` (INPUT_REQUIRED), `operator` (AUTH_REQUIRED) or `none`. */
export const PlannerWaitingOn = defineSearchAttributeKey('PlannerWaitingOn', SearchAttributeType.KEYWORD);
export const PlanId = defineSearchAttributeKey('PlanId', SearchAttributeType.KEYWORD);

export const plannerSearchAttributes = [A2aAgent, A2aTaskId, A2aTaskState, PlannerWaitingOn, PlanId];
