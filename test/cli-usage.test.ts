// What a person sees before anything is sent: every command's --help (with examples), the
// top-level help, and usage errors as one line with exit 2. The CLI runs as a child process
// exactly as a user runs it; the command list comes from the program itself, so a new command
// is covered the moment it is registered.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { buildProgram } from '../cli/main';
import { connectClient, uniqueQueue } from './harness/planner';
import { escapeRegExp, expectOneLineError, spawnPlanner, type Exit } from './support/planner-cli';

const queue = uniqueQueue('cli-usage');
const planner = (args: string[], env: Record<string, string> = {}): Promise<Exit> => spawnPlanner(queue, args, { env }).exit;
/** Each run loads the CLI (tsx, @temporalio/client): seconds apiece when the two cores are busy. */
const MANY_RUNS_MS = 240_000;
const commands = buildProgram().commands.map((c) => ({ name: c.name(), description: c.description() }));

/** Runs the CLI for each item, a few at a time (two shared cores). */
async function inBatches<T>(items: T[], run: (item: T) => Promise<Exit>, size = 3): Promise<Exit[]> {
  const results: Exit[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return results;
}

/** A usage error: exit 2, nothing on stdout, one line naming the command, the problem and where help is. */
function expectUsageError(r: Exit, command: string, problem: RegExp): void {
  expectOneLineError(r, 2, new RegExp(`^planner ${command}: ${problem.source}`));
  expect(r.stderr.trimEnd()).toMatch(new RegExp(`\\(see planner ${command} --help\\)$`));
  expect(r.stdout).toBe('');
}

let client: Client;

beforeAll(async () => {
  client = await connectClient();
});

afterAll(async () => {
  await client?.connection.close();
});

describe('help', () => {
  it('planner --help lists every command on one line, the exit codes and the connection variables', async () => {
    const r = await planner(['--help']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: planner <command> \[options\]/);
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['dev', 'worker', 'delegate', 'inbox', 'status', 'answer', 'cancel', 'artifact']));
    for (const { name, description } of commands) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name}\\b.*  ${escapeRegExp(description)}$`, 'm'));
    }
    expect(r.stdout).toMatch(/^Exit codes:\n {2}0 {2}done\n {2}1 {2}failed at run time.*\n {2}2 {2}bad command line/m);
    for (const variable of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'PLANNER_TASK_QUEUE']) expect(r.stdout).toMatch(new RegExp(`^ {2}${variable} +\\S`, 'm'));
  });

  it('every command has --help with its description, its flags and examples (exit 0)', async () => {
    const helps = await inBatches(commands, ({ name }) => planner([name, '--help']));
    commands.forEach(({ name, description }, i) => {
      const r = helps[i]!;
      expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(r.stdout).toMatch(new RegExp(`^Usage: planner ${name}\\b`));
      expect(r.stdout.replace(/\s+/g, ' ')).toContain(description);
      expect(r.stdout).toMatch(/^Options:\n(.*\n)*? {2}-h, --help/m);
      // An Examples section with at least one planner (or npm) command line in it.
      expect(r.stdout).toMatch(/^Examples:\n(?: {2}.*\n)*? {2}(?:\S+=\S+ )*(?:planner|npm) /m);
    });
  }, MANY_RUNS_MS);

  it('planner --help loads no command module and no Temporal client (each command loads only what it runs)', () => {
    // The sources through tsx, in a process of their own: the compiled CLI (dist/) has the same imports.
    const script = [
      "require('tsx/cjs');",
      `require(${JSON.stringify(join(__dirname, '..', 'cli', 'main.ts'))}).main(['--help']).then((code) => {`,
      "  const loaded = Object.keys(require.cache).filter((f) => /@temporalio|[\\/]cli[\\/]commands[\\/]/.test(f));",
      '  process.stderr.write(JSON.stringify({ code, loaded }));',
      '});',
    ].join('\n');
    const child = spawnSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(child.stderr) as unknown).toEqual({ code: 0, loaded: [] });
    expect(child.stdout).toMatch(/^Usage: planner <command>/);
  });

  it('planner help COMMAND is the command\'s help; planner alone prints the help as an error (exit 2)', async () => {
    const [viaHelp, direct, bare] = await Promise.all([planner(['help', 'answer']), planner(['answer', '--help']), planner([])]);
    expect(viaHelp).toMatchObject({ code: 0, stderr: '' });
    expect(viaHelp.stdout).toBe(direct.stdout);
    expect(viaHelp.stdout).toContain('--turn <N>');
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toMatch(/^Usage: planner <command>/);
  });
});

describe('the compiled CLI', () => {
  // bin/planner.js runs dist/ only when it is as new as every source it compiles; else the sources (tsx).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file beside the bin, no types
  const { compiledCliIsStale } = require('../bin/compiled-cli') as { compiledCliIsStale: (root: string) => boolean };

  it('is stale without a finished build, after a source or a tsconfig changes, and fresh otherwise', () => {
    const root = mkdtempSync(join(tmpdir(), 'compiled-cli-'));
    try {
      const at = (path: string, seconds: number): void => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        if (!existsSync(join(root, path))) writeFileSync(join(root, path), '');
        utimesSync(join(root, path), seconds, seconds);
      };
      writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ include: ['cli', 'missing-folder'] }));
      at('tsconfig.build.json', 1000);
      at('tsconfig.json', 1000);
      at('cli/deep/command.ts', 1000);
      at('cli/notes.md', 5000); // not a source
      at('dist/cli/main.js', 2000);
      expect(compiledCliIsStale(root)).toBe(true); // no dist/.complete: the build did not finish
      at('dist/.complete', 2000);
      expect(compiledCliIsStale(root)).toBe(false);
      at('cli/deep/command.ts', 3000);
      expect(compiledCliIsStale(root)).toBe(true); // a source edited after the build
      at('dist/.complete', 4000);
      expect(compiledCliIsStale(root)).toBe(false);
      at('tsconfig.json', 4500);
      expect(compiledCliIsStale(root)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('usage errors: one line, exit 2, nothing sent', () => {
  it('name the problem in the planner\'s words, not commander\'s', async () => {
    const cases: Array<[args: string[], command: string, problem: RegExp]> = [
      [['inbox', '--outptu', 'json'], 'inbox', /unknown flag --outptu \(did you mean --output\?\)/],
      [['inbox', '-o', 'yaml'], 'inbox', /bad --output: Allowed choices are text, json\./],
      [['artifact', 'task-x'], 'artifact', /missing NAME/],
      [['cancel'], 'cancel', /missing PLAN_OR_WORKFLOW_ID/],
      [['status', 'task-x', 'task-y'], 'status', /unexpected argument "task-y"/],
      [['answer', 'task-x', 'main', '--turn', '0'], 'answer', /bad --turn "0": a question turn, a whole number from 1/],
      [['answer', 'task-x'], 'answer', /missing the answer: give TEXT or --data/],
      [['delegate', '--agent', 'code-reviewer', '--url', 'http://127.0.0.1:9', '--text', ''], 'delegate', /--text needs a value/],
      [['delegate', '--agent', 'code-reviewer', '--url', 'http://127.0.0.1:9', '--text', 'hi', '--auth-deadline', '1h'], 'delegate', /--auth-deadline needs --on-auth-deadline remind\|fail\|cancel/],
      [['dev', '--no-agent'], 'dev', /unknown flag --no-agent \(did you mean --no-agents\?\)/],
    ];
    const results = await inBatches(cases, ([args]) => planner(args));
    cases.forEach(([args, command, problem], i) => {
      try {
        expectUsageError(results[i]!, command, problem);
      } catch (e) {
        throw new Error(`planner ${args.join(' ')}: ${(e as Error).message}`);
      }
    });
  }, MANY_RUNS_MS);

  it('a bad environment is a usage error naming the variable', async () => {
    const [format, port] = await Promise.all([
      planner(['worker'], { PLANNER_LOG_FORMAT: 'yaml' }),
      planner(['dev'], { PLANNER_DEMO_REVIEWER_PORT: 'http' }),
    ]);
    expectUsageError(format, 'worker', /invalid planner configuration: PLANNER_LOG_FORMAT: "yaml" is not a log format: use pretty or json/);
    expectUsageError(port, 'dev', /invalid planner configuration: PLANNER_DEMO_REVIEWER_PORT: a port number/);
  });

  it('an unknown command lists the commands; planner help of an unknown command says so', async () => {
    const [typo, help] = await Promise.all([planner(['stauts', 'task-x']), planner(['help', 'frobnicate'])]);
    expectOneLineError(typo, 2, /^planner: unknown command "stauts": did you mean status\? \(commands: dev, demo, run, plan, /);
    expectOneLineError(help, 2, /^planner help: unknown command "frobnicate" \(commands: dev, /);
  });

  it('nothing starts when the command line is wrong', async () => {
    const id = `cli-usage-${randomUUID().slice(0, 8)}`;
    const r = await planner(['delegate', '--agent', 'code-reviewer', '--url', 'http://127.0.0.1:9', '--text', 'hi', '--id', id, '--colour', 'red']);
    expectUsageError(r, 'delegate', /unknown flag --colour/);
    await expect(client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('-o json where there is no cluster', () => {
  it('planner cluster status -o json prints one JSON document (up: false) and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-usage-cluster-'));
    try {
      const r = await planner(['cluster', 'status', '--dir', dir, '-o', 'json']);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toEqual({ dir, up: false, parts: [], notes: [] });
      expect(r.stderr).toMatch(/the cluster is not up/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
