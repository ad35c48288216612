// Substitutions in step messages: `{{inputs.x}}`, `{{steps.<id>.text}}`, `{{steps.<id>.artifacts.<name>}}`.
// Parsed the same way when a plan is checked (every reference must name something) and when a
// step's message is rendered in PlanWorkflow. Deterministic code only. Placeholders are found by a
// scanner linear in the text's length: the regex it replaces (/\{\{\s*([^{}]*?)\s*\}\}/g) was cubic
// on runs of "{{" and spaces, and a 2 KB plan held the API for 4.4 s and timed out every workflow task.
import type { Artifact, Part } from '../../a2a/schema';
import { clipText } from '../../a2a/remote-text';

/** How much of a placeholder that names nothing its error message shows. */
const EXPR_SHOWN = 200;

export type Reference =
  | { kind: 'input'; name: string }
  | { kind: 'text'; step: string }
  | { kind: 'artifact'; step: string; name: string };

/** One placeholder: where it starts and ends in the text, and its expression (trimmed). */
interface Placeholder {
  start: number;
  end: number;
  expr: string;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/**
 * Every placeholder, left to right, as the old regex found them: `{{`, then text without braces,
 * then `}}`; the expression is that text trimmed. Each character is looked at a bounded number of
 * times: after a `{{` the scan runs to the next brace, and no later `{{` starts before that brace.
 */
function findPlaceholders(text: string): Placeholder[] {
  const found: Placeholder[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf('{{', from);
    if (start === -1) return found;
    let k = start + 2;
    while (k < text.length && text.charCodeAt(k) !== OPEN && text.charCodeAt(k) !== CLOSE) k++;
    if (text.charCodeAt(k) === CLOSE && text.charCodeAt(k + 1) === CLOSE) {
      found.push({ start, end: k + 2, expr: text.slice(start + 2, k).trim() });
      from = k + 2;
    } else {
      from = start + 1;
    }
  }
}

/** The reference an expression names, or why it names nothing. */
export function parseReference(expr: string): Reference | { error: string } {
  let m = /^inputs\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
  if (m) return { kind: 'input', name: m[1]! };
  m = /^steps\.([a-z][a-z0-9_-]*)\.text$/.exec(expr);
  if (m) return { kind: 'text', step: m[1]! };
  m = /^steps\.([a-z][a-z0-9_-]*)\.artifacts\.(.+)$/.exec(expr);
  if (m) return { kind: 'artifact', step: m[1]!, name: m[2]! };
  // A caller's plan may hold any text between braces: the message shows at most EXPR_SHOWN of it.
  return { error: `"{{${clipText(expr, EXPR_SHOWN)}}}" is not a substitution (use {{inputs.NAME}}, {{steps.ID.text}} or {{steps.ID.artifacts.NAME}})` };
}

/** Every placeholder in a message's text and in the strings of its data. */
export function placeholders(text: string | undefined, data: unknown): string[] {
  const out: string[] = [];
  const scan = (s: string): void => {
    for (const p of findPlaceholders(s)) out.push(p.expr);
  };
  if (text !== undefined) scan(text);
  visitStrings(data, (s) => {
    scan(s);
    return s;
  });
  return out;
}

export interface StepOutput {
  text?: string;
  artifacts: Artifact[];
}

export interface RenderContext {
  inputs: Record<string, string>;
  steps: Record<string, StepOutput | undefined>;
}

export class SubstitutionError extends Error {
  override readonly name = 'SubstitutionError';
}

/** Replaces every placeholder; throws SubstitutionError naming the one that has no value. */
export function render(template: string, ctx: RenderContext): string {
  let out = '';
  let copied = 0;
  for (const p of findPlaceholders(template)) {
    out += template.slice(copied, p.start) + valueOf(p.expr, ctx);
    copied = p.end;
  }
  return copied === 0 ? template : out + template.slice(copied);
}

export function renderData(data: unknown, ctx: RenderContext): unknown {
  return visitStrings(data, (s) => render(s, ctx));
}

function valueOf(expr: string, ctx: RenderContext): string {
  const ref = parseReference(expr);
  if ('error' in ref) throw new SubstitutionError(ref.error);
  if (ref.kind === 'input') {
    const v = ctx.inputs[ref.name];
    if (v === undefined) throw new SubstitutionError(`{{${expr}}}: no input named ${ref.name}`);
    return v;
  }
  const out = ctx.steps[ref.step];
  if (!out) throw new SubstitutionError(`{{${expr}}}: step ${ref.step} has no output (it did not complete)`);
  if (ref.kind === 'text') return out.text ?? '';
  const artifact = out.artifacts.find((a) => a.name === ref.name || a.artifactId === ref.name);
  if (!artifact) {
    const names = out.artifacts.map((a) => a.name ?? a.artifactId).join(', ') || 'none';
    throw new SubstitutionError(`{{${expr}}}: step ${ref.step} produced no artifact named ${ref.name} (it produced: ${names})`);
  }
  return artifactText(artifact);
}

/** An artifact as text: text parts as they are, data parts as JSON, files by name and size. */
export function artifactText(a: Artifact): string {
  return a.parts.map(partText).join('\n');
}

function partText(p: Part): string {
  if ('text' in p && typeof p.text === 'string') return p.text;
  if ('data' in p) return JSON.stringify(p.data);
  if ('url' in p && typeof p.url === 'string') return p.url;
  const name = p.filename ?? 'file';
  return `(${name}, ${p.mediaType ?? 'application/octet-stream'})`;
}

function visitStrings(v: unknown, fn: (s: string) => string): unknown {
  if (typeof v === 'string') return fn(v);
  if (Array.isArray(v)) return v.map((x) => visitStrings(x, fn));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visitStrings(x, fn)]));
  return v;
}
