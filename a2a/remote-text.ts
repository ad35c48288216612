/**
 * Text that comes from outside (an agent's status or error, a card, a caller's plan or answer):
 * its bounds, and the few operations the planner runs on it, each in time linear in its length.
 *
 * Why (DESIGN.md invariant 11, issue 19): a FAILED status of 100,000 spaces once ran regexes that
 * backtrack quadratically on whitespace inside the workflow sandbox; the 5 s sandbox timeout fired
 * inside a microtask and Node aborted the whole worker process. So remote text is clipped at the
 * edge (the activity, before it reaches a workflow) and nothing here uses a regex that can
 * backtrack. Pure and deterministic: workflow code imports it too.
 */

/** An agent's status message text (a question, an approval request, a failure reason), in characters. */
export const STATUS_TEXT_MAX = 16_384;
/** A run of whitespace inside one line of remote text, in characters; longer runs are cut to this. */
export const WHITESPACE_RUN_MAX = 200;
/** An artifact's name or description, as the workflows read it (its parts stay whole: they are data). */
export const ARTIFACT_LABEL_MAX = 1_024;
/** An ISO timestamp is about 30 characters; anything longer is not one. */
export const TIMESTAMP_MAX = 64;
/** Ids an agent mints (task, context, artifact): longer ones are refused as an invalid response. */
export const REMOTE_ID_MAX = 4_096;

/** JS `\s`: WhiteSpace and LineTerminator (the set String.prototype.trim removes). */
export function isWhitespace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const isLineBreak = (code: number): boolean => code === 0x0a || code === 0x0d;

/** `text` cut to `max` characters, saying how much was cut; unchanged when it fits. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}

/** Runs of whitespace without a line break longer than `maxRun` cut to `maxRun`; one pass. */
export function capWhitespaceRuns(text: string, maxRun = WHITESPACE_RUN_MAX): string {
  let out = '';
  let kept = 0; // start of the part not yet copied
  let run = 0; // length of the current run of whitespace (line breaks end a run)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isWhitespace(c) && !isLineBreak(c)) {
      run++;
      if (run === maxRun + 1) {
        out += text.slice(kept, i);
      }
      if (run > maxRun) kept = i + 1;
    } else {
      run = 0;
    }
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** A remote text as workflows may hold it: at most `max` characters, no whitespace run over WHITESPACE_RUN_MAX. */
export function boundRemoteText(text: string, max = STATUS_TEXT_MAX): string {
  const capped = capWhitespaceRuns(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${capped}… [${text.length - max} more characters cut]` : capped;
}

/**
 * One line: every run of whitespace that holds a line break (CR or LF) becomes one space, other
 * runs stay as they are, and the ends are trimmed. The same as
 * `text.replace(/\s*[\r\n]+\s*\/g, ' ').trim()`, which is quadratic on a long run of spaces.
 */
export function oneLine(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = i;
    let breaks = false;
    while (i < text.length && isWhitespace(text.charCodeAt(i))) {
      if (isLineBreak(text.charCodeAt(i))) breaks = true;
      i++;
    }
    if (i > start) {
      out += breaks ? ' ' : text.slice(start, i);
      continue;
    }
    while (i < text.length && !isWhitespace(text.charCodeAt(i))) i++;
    out += text.slice(start, i);
  }
  return out.trim();
}

/** `text` without the copies of `char` at its end (`url.replace(/\/+$/, '')`, which is quadratic on a run of them). */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}
