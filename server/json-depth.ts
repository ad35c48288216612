// How deep a request body's JSON nests, measured on the raw bytes before anything parses them.
// JSON.parse, zod and the error explainers all recurse: a body nested thousands deep blew the
// stack somewhere past them (a 500). One loop over the text, counting the brackets that are not
// inside strings, finds the depth in linear time with no recursion; body-parser's `verify` hook
// runs it on every body of the API and the A2A face (PLANNER_JSON_MAX_DEPTH).
import type { IncomingMessage, ServerResponse } from 'node:http';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/** A body nested deeper than the bound: the server answers 400 naming the bound (never parsed). */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
  /** body-parser keeps a verify error's own status. */
  readonly status = 400;
  constructor(readonly maxDepth: number) {
    super(`the body nests objects and arrays more than ${maxDepth} deep: the most this server reads is PLANNER_JSON_MAX_DEPTH (${maxDepth})`);
  }
}

/** True when the JSON text nests objects and arrays deeper than `max` (it stops reading there). */
export function nestsDeeperThan(text: { length: number; at(i: number): number }, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

/** The body as code units: UTF-8 bytes as they are (quotes, backslashes and brackets are ASCII), other charsets decoded. */
function codeUnits(buf: Buffer, encoding: string | null | undefined): { length: number; at(i: number): number } {
  const utf8 = !encoding || /^utf-?8$/i.test(encoding);
  if (utf8) return { length: buf.length, at: (i) => buf[i]! };
  const text = new TextDecoder(encoding).decode(buf);
  return { length: text.length, at: (i) => text.charCodeAt(i) };
}

/** body-parser's `verify` option: refuses a body nested deeper than `max` before it is parsed. */
export function refuseDeepJson(max: number): (req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string) => void {
  return (_req, _res, buf, encoding) => {
    if (nestsDeeperThan(codeUnits(buf, encoding), max)) throw new JsonTooDeepError(max);
  };
}
