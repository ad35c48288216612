// The floor's messages, apart from its workflows so that its activities and its runner import no workflow code.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** The bot's answer to a task's question. */
export const floorAnswerUpdate = defineUpdate<void, [string]>('answer');
/** A step's report to its plan: what it now waits on. */
export const floorStepWaitingSignal = defineSignal<[string]>('stepWaiting');
