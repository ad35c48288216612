// The one place where a Temporal failure's cause chain is walked: WorkflowFailedError ->
// ActivityFailure -> ApplicationFailure (an A2A error's class name as its type), and so on. What a
// person needs is the innermost typed cause with the call that hit it, not "Activity task failed".
// Pure and deterministic: imported by workflow code as well as by the CLI and the API.
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  NexusOperationFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { oneLine } from '../a2a/remote-text';

/** Deeper chains are cut here; a cycle (a.cause === a) ends the walk too. */
const MAX_DEPTH = 32;
/** A failure message for a person is one line of bounded length. */
const MAX_CHARS = 1_000;

/** The errors of `err`'s cause chain, outermost first (`err` itself included when it is an Error). */
export function causeChain(err: unknown): Error[] {
  const chain: Error[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e) && chain.length < MAX_DEPTH; e = e.cause) {
    seen.add(e);
    chain.push(e);
  }
  return chain;
}

/** The innermost cause: the error that says what went wrong, past every wrapper. */
export function innermostCause(err: unknown): Error | undefined {
  const chain = causeChain(err);
  return chain[chain.length - 1];
}

/**
 * One line for a person: the innermost cause's type and message, and the call it came from, e.g.
 * `InvalidAgentResponseError: agent hostile (http://…/jsonrpc): response body is not valid JSON (activity sendMessage)`.
 */
export function describeFailure(err: unknown): string {
  const chain = causeChain(err);
  const inner = chain[chain.length - 1];
  if (!inner) return oneBoundedLine(typeof err === 'string' ? err : String(err));
  const where: string[] = [];
  // The call nearest to the cause is the one that failed; outer ones only carried it up.
  for (const e of [...chain].reverse()) {
    if (e === inner) continue;
    if (e instanceof ActivityFailure) {
      where.push(`activity ${e.activityType}`);
      break;
    }
    if (e instanceof ChildWorkflowFailure) {
      where.push(`child workflow ${e.workflowType} ${e.execution.workflowId ?? ''}`.trimEnd());
      break;
    }
    if (e instanceof NexusOperationFailure) {
      where.push(`nexus operation ${e.service}/${e.operation}`);
      break;
    }
  }
  // A retry that ran out of time: say so, the last attempt's error alone would hide it.
  const timeout = chain.find((e): e is TimeoutFailure => e instanceof TimeoutFailure && e !== inner);
  if (timeout) where.push(`after a ${timeoutName(timeout)} timeout`);
  const text = `${typeOf(inner)}: ${messageOf(inner)}${where.length ? ` (${where.join(', ')})` : ''}`;
  return oneBoundedLine(text);
}

function typeOf(e: Error): string {
  if (e instanceof ApplicationFailure) return e.type || 'Error';
  return e.name || 'Error';
}

function messageOf(e: Error): string {
  if (e instanceof TimeoutFailure && !e.message) return `${timeoutName(e)} timeout`;
  return e.message || '(no message)';
}

function timeoutName(e: TimeoutFailure): string {
  return e.timeoutType ? e.timeoutType.toLowerCase().replace(/_/g, '-') : 'unknown';
}

/** One line of at most MAX_CHARS, linear in the text's length: a failure's message may hold whatever an agent or a caller sent. */
function oneBoundedLine(text: string): string {
  const line = oneLine(text);
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
}
