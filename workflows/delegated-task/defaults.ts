// The delegated task's policy defaults as plain values. The zod schemas (input.ts) default to
// these, and PlanWorkflow fills a step's policies from them in plain code, so a plan starting a
// step evaluates no zod in its workflow (schemas.ts: ~15 ms of CPU per plan start).
// What each one means is said beside its field in input.ts.
export const WATCH_DEFAULTS = {
  mode: 'auto',
  pollInitial: '1s',
  pollMax: '30s',
  idleTimeout: '5m',
  heartbeatTimeout: '2m',
  firstHeartbeatTimeout: '10s',
  firstLease: '2m',
  lease: '6h',
  inputPoll: '10m',
  inputPollMax: '24h',
  unreachableAfter: '5m',
  onUnreachable: 'alert',
  maxEmptyCloses: 5,
  coalesce: '200ms',
  pushBackstop: '10m',
  push: true,
} as const;

export const POLICY_DEFAULTS = {
  working: { after: '24h', onDeadline: 'remind' },
  maxAuthRounds: 5,
  sendTimeout: '5m',
  historyBudget: 5_000,
  onAmbiguousSend: 'ask',
} as const;
