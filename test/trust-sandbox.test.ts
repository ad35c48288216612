// Issue 19 items 2 and 4 as pure units: every function that runs on an agent's or a caller's text
// gets a megabyte of its worst case (whitespace, repeated delimiters, "{{" runs, line breaks, long
// tokens) and must finish far below what a super-linear pattern needs; and each linear replacement of a risky regex gives
// what the regex gave, on many small random inputs. The whole path on the dev server, with a real
// hostile agent and a child worker that must survive, is test/trust-hostile-agent.test.ts.
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { boundRemoteText, capWhitespaceRuns, clipText, oneLine, STATUS_TEXT_MAX, trimTrailing, WHITESPACE_RUN_MAX } from '../a2a/remote-text';
import { cleanText, displayUrl, parseRetryAfter } from '../a2a/call-context';
import { errorFromHttpStatus, errorFromJsonRpc, isJsonContentType, refusesTaskInTerminalState } from '../a2a/errors/decode';
import { toA2AError } from '../a2a/errors/transport';
import { agentCardUrl } from '../a2a/card';
import { InvalidParamsError, UnsupportedOperationError } from '../a2a/errors';
import { boundArtifact, observeTask, statusText } from '../activities/observe';
import { planFromText, planFromValue } from '../plans/load';
import { describeFailure } from '../workflows/failure-cause';
import { parseReference, placeholders, render } from '../workflows/plan/template';
import { fitSearchAttribute, toTextAttribute } from '../workflows/search-attributes';

const MiB = 1024 * 1024;
/**
 * Generous: the old regexes needed minutes to hours for a megabyte; linear code needs milliseconds
 * (a 1 MB YAML plan document takes the yaml library ~0.2 s idle, 4.3 s on a loaded CI run).
 */
const BOUND_MS = 10_000;

function timed<T>(fn: () => T): { value: T; ms: number } {
  const begun = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - begun) / 1e6 };
}

/** The worst inputs, a megabyte each. */
const worst: Record<string, string> = {
  spaces: ' '.repeat(MiB),
  'spaces then a letter': ' '.repeat(MiB - 1) + 'x',
  'tabs, CRs and spaces': ' \t\r'.repeat(MiB / 3),
  'line breaks': '\n'.repeat(MiB),
  'spaces and line breaks': ' \n'.repeat(MiB / 2),
  '"{{" runs': '{{'.repeat(MiB / 2),
  '"{{ " runs': '{{ '.repeat(MiB / 3),
  '"{{" then spaces': `{{${' '.repeat(MiB)}`,
  '"{{x" runs': '{{x'.repeat(MiB / 3),
  '"}}" runs': '}}'.repeat(MiB / 2),
  'slashes': '/'.repeat(MiB),
  '"task " runs': 'task '.repeat(MiB / 5),
  '"task in " runs': 'task in '.repeat(MiB / 8),
  'a long token': 'a'.repeat(MiB),
  'control characters': '\u0001'.repeat(MiB),
};

describe.each(Object.entries(worst))('a megabyte of %s', (_label, text) => {
  const cases: [string, () => unknown][] = [
    ['oneLine', () => oneLine(text)],
    ['describeFailure (workflow failure text)', () => describeFailure(new Error(text))],
    ['boundRemoteText (the edge)', () => boundRemoteText(text)],
    ['placeholders (plan check)', () => placeholders(text, { nested: [text] })],
    ['render (a step message)', () => {
      try {
        return render(text, { inputs: {}, steps: {} });
      } catch (err) {
        return err;
      }
    }],
    ['parseReference', () => parseReference(text)],
    ['refusesTaskInTerminalState (the SDK quirk)', () => refusesTaskInTerminalState(text)],
    ['trimTrailing', () => trimTrailing(text, '/')],
    ['cleanText (peer text in errors)', () => cleanText(text)],
    ['isJsonContentType', () => isJsonContentType(`application/${text}`)],
    ['parseRetryAfter', () => parseRetryAfter(text)],
    ['toTextAttribute', () => toTextAttribute(text)],
    ['fitSearchAttribute', () => fitSearchAttribute(text)],
    ['errorFromJsonRpc (-32602 with the text)', () => errorFromJsonRpc({ code: -32602, message: text }, { agent: 'a', url: 'http://a.example/' })],
    ['errorFromHttpStatus (a text body)', () => errorFromHttpStatus({ status: 400, headers: {}, contentType: 'text/plain', text }, { agent: 'a', url: 'http://a.example/' })],
    ['toA2AError (a thrown error)', () => toA2AError(new Error(text), { agent: 'a', url: 'http://a.example/' })],
    ['agentCardUrl (a URL path)', () => agentCardUrl(`http://a.example/${encodeURI(text).slice(0, MiB)}`)],
    ['displayUrl', () => displayUrl(`http://a.example/${encodeURI(text).slice(0, MiB)}`)],
    ['statusText (the observation)', () => statusText({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text }] })],
    ['a plan document (YAML) with it as a step text', () => planFromText(`name: p\nagents:\n  a:\n    url: http://a.example\nsteps:\n  - id: s\n    agent: a\n    text: ${JSON.stringify(text)}\n`, 'test')],
    ['a plan value with it as a step text', () => planFromValue({ name: 'p', agents: { a: { url: 'http://a.example' } }, steps: [{ id: 's', agent: 'a', text }] }, 'test')],
  ];
  it.each(cases)('%s finishes far below the time a super-linear pattern needs (10 s)', (_name, fn) => {
    const { ms } = timed(() => {
      try {
        return fn();
      } catch (err) {
        return err;
      }
    });
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('the edge bounds what a workflow holds of an agent\'s text', () => {
  const task = (text: string) => ({
    id: 't',
    contextId: 'c',
    status: { state: 'TASK_STATE_FAILED' as const, message: { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text }] }, timestamp: `2026-01-01T00:00:00Z${'x'.repeat(MiB)}` },
    artifacts: [{ artifactId: 'a', name: 'n'.repeat(MiB), description: ' '.repeat(MiB), parts: [{ text: 'd'.repeat(MiB) }] }],
  });

  it('clips the status text and its whitespace runs, the timestamp and the artifact labels; the parts stay whole', () => {
    const o = observeTask(task(' '.repeat(MiB)), 'get');
    expect(o.status!.text!.length).toBeLessThan(WHITESPACE_RUN_MAX + 100);
    expect(o.status!.text).toMatch(/more characters cut\]$/);
    expect(o.status!.timestamp!.length).toBeLessThanOrEqual(64);
    const a = o.artifacts![0]!;
    expect(a.name!.length).toBeLessThan(1_100);
    expect(a.description!.length).toBeLessThan(WHITESPACE_RUN_MAX + 100);
    expect(a.parts).toEqual([{ text: 'd'.repeat(MiB) }]);
  });

  it('keeps an ordinary status text as it is', () => {
    const text = 'Which branch?\n\n  - main\n  - release/2026.10\n\tindented    with   spaces';
    expect(observeTask(task(text), 'get').status!.text).toBe(text);
    const art = { artifactId: 'a', name: 'report.md', parts: [{ text: 'x' }] };
    expect(boundArtifact(art)).toBe(art);
  });

  it('cuts a text just over the bound, saying how much', () => {
    const text = 'x'.repeat(STATUS_TEXT_MAX + 5);
    expect(boundRemoteText(text)).toBe(`${'x'.repeat(STATUS_TEXT_MAX)}… [5 more characters cut]`);
    expect(clipText('abc', 3)).toBe('abc');
  });

  it('cuts only whitespace runs longer than the bound, line breaks ending a run', () => {
    const long = ' '.repeat(WHITESPACE_RUN_MAX + 50);
    expect(capWhitespaceRuns(`a${long}b${long}c`)).toBe(`a${' '.repeat(WHITESPACE_RUN_MAX)}b${' '.repeat(WHITESPACE_RUN_MAX)}c`);
    const fits = ' '.repeat(WHITESPACE_RUN_MAX);
    expect(capWhitespaceRuns(`a${fits}\n${fits}b`)).toBe(`a${fits}\n${fits}b`);
  });

  it('leaves the SDK\'s stack-trace cutoff (quadratic on whitespace) little to do: a failure of the bounded text converts fast', () => {
    const text = boundRemoteText(' '.repeat(MiB));
    const failure = ApplicationFailure.create({ type: 'RemoteTaskFailed', message: `agent task t ended TASK_STATE_FAILED: ${text}` });
    const { ms } = timed(() => new DefaultFailureConverter().errorToFailure(failure, defaultPayloadConverter));
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

/** Small random strings over an alphabet that exercises each pattern. */
function* randomTexts(alphabet: string[], count: number, maxLength: number): Generator<string> {
  let seed = 0x2545f491;
  const next = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  for (let i = 0; i < count; i++) {
    let s = '';
    const len = next(maxLength + 1);
    for (let j = 0; j < len; j++) s += alphabet[next(alphabet.length)];
    yield s;
  }
}

describe('the linear code gives what the regexes gave', () => {
  it('oneLine = replace(/\\s*[\\r\\n]+\\s*/g, " ").trim()', () => {
    for (const s of randomTexts([' ', '\t', '\n', '\r', 'a', 'b', '\u00a0', '\u2028'], 5_000, 16)) {
      expect(oneLine(s)).toBe(s.replace(/\s*[\r\n]+\s*/g, ' ').trim());
    }
  });

  it('placeholders and render = the old PLACEHOLDER regex', () => {
    const OLD = /\{\{\s*([^{}]*?)\s*\}\}/g;
    for (const s of randomTexts(['{', '}', '{{', '}}', ' ', '\n', 'a', 'inputs.x', '.'], 5_000, 12)) {
      expect(placeholders(s, undefined)).toEqual([...s.matchAll(OLD)].map((m) => m[1]));
      const ctx = { inputs: { x: 'X' }, steps: {} };
      const expected = (() => {
        try {
          return s.replace(OLD, (_m, expr: string) => {
            if (expr !== 'inputs.x') throw new Error('no value');
            return 'X';
          });
        } catch {
          return 'error';
        }
      })();
      const got = (() => {
        try {
          return render(s, ctx);
        } catch {
          return 'error';
        }
      })();
      expect(got).toBe(expected);
    }
  });

  it('refusesTaskInTerminalState = /\\btask\\b.*\\bin (a )?terminal state\\b/i', () => {
    const OLD = /\btask\b.*\bin (a )?terminal state\b/i;
    const words = ['task', 'Task', 'TASK', 'tasks', 'in ', 'In ', 'a ', 'terminal ', 'state', 'states', ' ', '\n', 'x', '_', '"'];
    for (const s of randomTexts(words, 20_000, 9)) expect([s, refusesTaskInTerminalState(s)]).toEqual([s, OLD.test(s)]);
    expect(refusesTaskInTerminalState('task in a terminal state "TASK_STATE_CANCELED"')).toBe(true);
    expect(refusesTaskInTerminalState('Task abc is in terminal state: TASK_STATE_COMPLETED')).toBe(true);
  });

  it('still reads a2a-go\'s refusal of a message to an ended task as UnsupportedOperation', () => {
    const ctx = { agent: 'go', url: 'http://go.example/' };
    expect(errorFromJsonRpc({ code: -32602, message: 'task in a terminal state "TASK_STATE_CANCELED"' }, ctx)).toBeInstanceOf(UnsupportedOperationError);
    expect(errorFromJsonRpc({ code: -32602, message: 'task '.repeat(MiB / 5) }, ctx)).toBeInstanceOf(InvalidParamsError);
  });

  it('trimTrailing = replace(/\\/+$/, "")', () => {
    for (const s of randomTexts(['/', 'a', '.'], 2_000, 8)) expect(trimTrailing(s, '/')).toBe(s.replace(/\/+$/, ''));
  });
});
