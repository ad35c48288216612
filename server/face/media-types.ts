// Spec §3.1.1: a message part whose media type the agent does not take is refused with
// ContentTypeNotSupportedError (-32005 / HTTP 400 CONTENT_TYPE_NOT_SUPPORTED) before anything is
// started or delivered. Every skill takes the card's defaultInputModes, so they are the list. A
// part without a mediaType is of its kind's type (text: text/plain, data: application/json) and
// always taken. Types compare by their essence: case-insensitive, parameters (charset) dropped.
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import type { Part } from '../../a2a/schema';

const essence = (type: string): string => type.split(';')[0]!.trim().toLowerCase();

/** -32005 naming the first part whose mediaType is not among `modes`. */
export function refuseUnlistedMediaTypes(parts: readonly Part[], modes: readonly string[]): void {
  const listed = new Set(modes.map(essence));
  parts.forEach((part, i) => {
    if (!part.mediaType || listed.has(essence(part.mediaType))) return;
    throw new ContentTypeNotSupportedError({
      message: `message.parts[${i}].mediaType: ${JSON.stringify(part.mediaType)} is not a type this agent takes (the card's defaultInputModes: ${modes.join(', ')})`,
    });
  });
}
