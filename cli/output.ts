// What the CLI writes: results on stdout, everything for a person (errors, progress) on stderr.
// Every command that prints data prints text for a person by default, and the same data for a
// program with `-o json` (`--output json`); docs/cli.md gives each command's JSON shape.
import { Option } from '@commander-js/extra-typings';

export const OUTPUT_FORMATS = ['text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `-o, --output text|json`, the same on every command that prints data. */
export function outputOption() {
  return new Option('-o, --output <FORMAT>', 'text for a person, json for a program (docs/cli.md has its shape)').choices(OUTPUT_FORMATS).default('text' as OutputFormat);
}

export function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

export function err(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

/** One value, as `-o` asks: JSON for a program, else the text `asText` makes of it for a person. */
export function print<T>(output: OutputFormat, value: T, asText: (value: T) => string): void {
  if (output === 'json') printJson(value);
  else out(asText(value));
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

export function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A wait's age for a table: 42s, 12m, 3h 5m, 4d. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86400)}d`;
}

/**
 * Runs `work`, telling a person that it runs when it takes a while: one line when it starts, one
 * every `everyMs` while it lasts, and how long it took. The lines go to `write` (stderr by default).
 */
export async function withProgress<T>(what: string, work: () => Promise<T>, opts: { everyMs?: number; write?: (line: string) => void } = {}): Promise<T> {
  const write = opts.write ?? err;
  const started = Date.now();
  const seconds = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  write(`${what}...`);
  const ticker = setInterval(() => write(`  ... still ${what.charAt(0).toLowerCase()}${what.slice(1)} (${seconds()})`), opts.everyMs ?? 10_000);
  try {
    const result = await work();
    write(`${what}: done in ${seconds()}`);
    return result;
  } finally {
    clearInterval(ticker);
  }
}
