// Substitutions in step messages: `{{inputs.x}}`, `{{steps.<id>.text}}`, `{{steps.<id>.artifacts.<name>}}`.
// Parsed the same way when a plan is checked (every reference must name something) and when a
// step's message is rendered in PlanWorkflow. Deterministic code only.
import type { Artifact, Part } from '../../a2a/schema';

export type Reference =
  | { kind: 'input'; name: string }
  | { kind: 'text'; step: string }
  | { kind: 'artifact'; step: string; name: string };

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The reference an expression names, or why it names nothing. */
export function parseReference(expr: string): Reference | { error: string } {
  let m = /^inputs\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
  if (m) return { kind: 'input', name: m[1]! };
  m = /^steps\.([a-z][a-z0-9_-]*)\.text$/.exec(expr);
  if (m) return { kind: 'text', step: m[1]! };
  m = /^steps\.([a-z][a-z0-9_-]*)\.artifacts\.(.+)$/.exec(expr);
  if (m) return { kind: 'artifact', step: m[1]!, name: m[2]! };
  return { error: `"{{${expr}}}" is not a substitution (use {{inputs.NAME}}, {{steps.ID.text}} or {{steps.ID.artifacts.NAME}})` };
}

/** Every placeholder in a message's text and in the strings of its data. */
export function placeholders(text: string | undefined, data: unknown): string[] {
  const out: string[] = [];
  const scan = (s: string): void => {
    for (const m of s.matchAll(PLACEHOLDER)) out.push(m[1]!);
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
  return template.replace(PLACEHOLDER, (_, expr: string) => valueOf(expr, ctx));
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
