import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';

// Attributes that make the inbox one visibility query: "what waits on whom", and what it asks.
// Every one is set in the same upsert as the others, so the inbox costs no extra history events.
export const A2aAgent = defineSearchAttributeKey('A2aAgent', SearchAttributeType.KEYWORD);
export const A2aTaskId = defineSearchAttributeKey('A2aTaskId', SearchAttributeType.KEYWORD);
export const A2aTaskState = defineSearchAttributeKey('A2aTaskState', SearchAttributeType.KEYWORD);
/** `human` (INPUT_REQUIRED), `operator` (AUTH_REQUIRED), `agent` (its reply, its work) or `none` (over). */
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
/**
 * Who started it: the principal (server/auth.ts) of the API or A2A caller whose plan, step or
 * schedule this is, set when it starts and carried by a plan to its steps' tasks. Unset on what
 * the CLI starts: only an operator sees that. Lets a caller's lists and inbox filter in visibility.
 */
export const PlannerOwner = defineSearchAttributeKey('PlannerOwner', SearchAttributeType.KEYWORD);

/**
 * A Text attribute as the planner writes it. PostgreSQL's SQL visibility casts Text values to
 * tsvector, where ':' starts a word's positions and '\'' and '\\' quote: an approval text with a URL
 * ("http://host:port/...") failed the cast, and the server retried that visibility update forever,
 * so the wait never reached the inbox. Escaped with '\\' the cast keeps each word whole; SQLite and
 * Elasticsearch store the value as it is. The inbox reads it back with fromTextAttribute.
 */
export function toTextAttribute(text: string): string {
  return text.replace(/[\\':]/g, (c) => `\\${c}`);
}

export function fromTextAttribute(value: string): string {
  return value.replace(/\\([\\':])/g, '$1');
}

/** Visibility stores keep values of a few KB; the inbox shows a line or two. */
export const WAIT_TEXT_MAX = 1000;

/**
 * The server refuses a search attribute value whose JSON payload is over this many bytes (the
 * default of its `limit.searchAttributeValueSize`) and terminates the workflow that upserted it.
 */
export const SEARCH_ATTRIBUTE_VALUE_MAX_BYTES = 2048;

/**
 * `value`, cut and ended with '…' only when its JSON payload would pass
 * SEARCH_ATTRIBUTE_VALUE_MAX_BYTES: an approval request of 1,000 three-byte characters, or an
 * agent's 4,096-character task id, once made the server terminate the task's workflow. A value
 * that fits is returned unchanged, so recorded histories replay as they were. Linear in its length.
 */
export function fitSearchAttribute(value: string): string {
  let bytes = 2; // the JSON string's quotes
  for (const ch of value) bytes += jsonBytes(ch);
  if (bytes <= SEARCH_ATTRIBUTE_VALUE_MAX_BYTES) return value;
  bytes = 2 + jsonBytes('…');
  let end = 0;
  for (const ch of value) {
    const b = jsonBytes(ch);
    if (bytes + b > SEARCH_ATTRIBUTE_VALUE_MAX_BYTES) break;
    bytes += b;
    end += ch.length;
  }
  return `${value.slice(0, end)}…`;
}

/**
 * What a workflow upserts, every string value fitted (fitSearchAttribute): the server terminates a
 * run for one value over its limit, whichever attribute and whoever wrote it, so every upsert goes
 * through here.
 */
export function fitted(pairs: SearchAttributeUpdatePair[]): SearchAttributeUpdatePair[] {
  return pairs.map((p) => (typeof p.value === 'string' ? ({ ...p, value: fitSearchAttribute(p.value) } as SearchAttributeUpdatePair) : p));
}

/** One character's bytes in a JSON string in UTF-8 (an escape where JSON needs one; at most, for controls). */
function jsonBytes(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (ch === '"' || ch === '\\') return 2;
  if (cp < 0x20) return 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate: JSON.stringify writes \uXXXX
  return cp < 0x10000 ? 3 : 4;
}

export const plannerSearchAttributes = [A2aAgent, A2aTaskId, A2aTaskState, PlannerWaitingOn, PlanId, PlanStep, PlannerWaitText, PlannerTurn, PlannerWaitingSince, PlannerOwner];

/** The CLI's `--search-attribute NAME=TYPE` type names. */
export const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<string, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DATETIME]: 'Datetime',
};

/**
 * A delegated task's wait before it has published anything: set when it is started, so that the
 * inbox shows a first message the agent never answers from the first moment, with its age.
 */
export function firstReplyWait(now: Date) {
  return [
    { key: PlannerWaitingOn, value: 'agent' },
    { key: PlannerWaitingSince, value: now },
    { key: PlannerWaitText, value: toTextAttribute("waiting on the agent's reply to the first message") },
  ] as const;
}
