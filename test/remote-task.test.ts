// RemoteTask is pure: what the workflow believes of the remote task, merged from observations.
import { RemoteTask } from '../workflows/delegated-task/remote-task';
import type { Observation } from '../workflows/delegated-task/messages';

const at = (s: number): string => new Date(Date.UTC(2026, 11, 2, 12, 0, s)).toISOString();
const obs = (state: Observation['status'] extends infer S ? (S extends { state: infer T } ? T : never) : never, t: number, text?: string, extra: Partial<Observation> = {}): Observation => ({
  source: 'poll',
  taskId: 't1',
  status: { state, timestamp: at(t), text },
  ...extra,
});
const artifact = (id: string, text: string) => ({ artifactId: id, parts: [{ text }] });

describe('RemoteTask', () => {
  it('counts a newer AUTH_REQUIRED with another request as a new round, even when the WORKING between was missed', () => {
    const t = new RemoteTask();
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 1, 'approve at /a (approval 1 of 2)'));
    expect(t.authEntries).toBe(1);
    // A poll that saw nothing of the short WORKING: the same state, later, asking for something else.
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 3, 'approve at /a (approval 2 of 2)'));
    expect(t.authEntries).toBe(2);
  });

  it('counts a newer AUTH_REQUIRED in the same words as a new round (the agent did ask again)', () => {
    const t = new RemoteTask();
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 1, 'approve at /a'));
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 1, 'approve at /a'));
    expect(t.authEntries).toBe(1); // the same status seen twice is one round
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 2, 'approve at /a'));
    expect(t.authEntries).toBe(2);
  });

  it('before auth-rounds-by-time, did not count a restated request (same text, later timestamp) as a new round', () => {
    const t = new RemoteTask();
    t.roundsByTime = () => false;
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 1, 'approve at /a'));
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 2, 'approve at /a'));
    expect(t.authEntries).toBe(1);
    t.apply(obs('TASK_STATE_WORKING', 3, 'approved'));
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 4, 'approve at /a'));
    expect(t.authEntries).toBe(2);
  });

  it('takes a status without timestamps in the same state but other words as newer (a2a-python 0.3 over HTTP+JSON sends none)', () => {
    const t = new RemoteTask();
    const bare = (state: 'TASK_STATE_AUTH_REQUIRED' | 'TASK_STATE_INPUT_REQUIRED', text: string): Observation => ({ source: 'stream', taskId: 't1', status: { state, text } });
    t.apply(bare('TASK_STATE_AUTH_REQUIRED', 'approve at /a (approval 1 of 2)'));
    expect(t.apply(bare('TASK_STATE_AUTH_REQUIRED', 'approve at /a (approval 1 of 2)'))).toBe(false);
    expect(t.apply(bare('TASK_STATE_AUTH_REQUIRED', 'approve at /a (approval 2 of 2)'))).toBe(true);
    expect({ rounds: t.authEntries, text: t.text }).toEqual({ rounds: 2, text: 'approve at /a (approval 2 of 2)' });
    const q = new RemoteTask();
    q.apply(bare('TASK_STATE_INPUT_REQUIRED', 'Which branch?'));
    const version = q.version;
    expect(q.apply(bare('TASK_STATE_INPUT_REQUIRED', 'Migrations too?'))).toBe(true);
    expect({ text: q.text, moved: q.version > version }).toEqual({ text: 'Migrations too?', moved: true });
  });

  it('before status-words-without-time, kept ignoring such a status', () => {
    const t = new RemoteTask();
    t.wordsWithoutTime = () => false;
    t.apply({ source: 'stream', taskId: 't1', status: { state: 'TASK_STATE_INPUT_REQUIRED', text: 'Which branch?' } });
    expect(t.apply({ source: 'stream', taskId: 't1', status: { state: 'TASK_STATE_INPUT_REQUIRED', text: 'Migrations too?' } })).toBe(false);
  });

  it('never lets a stale snapshot roll artifacts back', () => {
    const t = new RemoteTask();
    t.apply(obs('TASK_STATE_WORKING', 5, 'working', { artifacts: [artifact('a', 'new')] }));
    t.apply(obs('TASK_STATE_WORKING', 2, 'older', { artifacts: [artifact('a', 'old')] }));
    expect(t.artifactList).toEqual([artifact('a', 'new')]);
    expect(t.text).toBe('working');
  });

  it('survives a snapshot round trip (continue-as-new) unchanged', () => {
    const t = new RemoteTask();
    t.apply(obs('TASK_STATE_AUTH_REQUIRED', 1, 'approve', { contextId: 'c1', artifacts: [artifact('a', 'x')] }));
    const again = RemoteTask.from(JSON.parse(JSON.stringify(t.snapshot())));
    expect(again.snapshot()).toEqual(t.snapshot());
    expect(again.waitingOn()).toBe('operator');
  });
});
