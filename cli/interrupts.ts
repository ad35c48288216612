// Ctrl-C for long-running commands: the first SIGINT (or SIGTERM) asks for an orderly stop, the
// second forces one. Commands check `requested` between start-up steps so that a Ctrl-C during
// start-up stops what was started so far.

export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor() {
    super('interrupted');
  }
}

export interface Interrupts {
  readonly requested: boolean;
  /** Throws Interrupted once a stop was asked for: call it between start-up steps. */
  throwIfRequested(): void;
  /** Removes the handlers (the process gets its default signal behaviour back). */
  dispose(): void;
}

export function handleInterrupts(handlers: { graceful(signal: NodeJS.Signals): void; forced(signal: NodeJS.Signals): void }): Interrupts {
  let count = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    count += 1;
    if (count === 1) handlers.graceful(signal);
    else handlers.forced(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  for (const s of signals) process.on(s, onSignal);
  return {
    get requested() {
      return count > 0;
    },
    throwIfRequested() {
      if (count > 0) throw new Interrupted();
    },
    dispose() {
      for (const s of signals) process.off(s, onSignal);
    },
  };
}
