// Coalesces the observations a watch (or the subscription held for one) tells its workflow: a burst
// of changes that need no action costs one signal, sent in order, and the first failure is kept for
// the caller to meet at its next report or when it settles.
import type { Observation } from '../workflows/delegated-task/messages';

export class Reporter {
  private timer?: NodeJS.Timeout;
  /** When the scheduled report goes out. */
  private dueAt = 0;
  private pending?: Observation;
  private chain: Promise<void> = Promise.resolve();
  private failure?: unknown;
  constructor(
    private readonly send: (o: Observation) => Promise<void>,
    private readonly delayMs: number,
  ) {}

  /** Reports `o` after the quiet time, or within `soonMs` when that is sooner. */
  later(o: Observation, soonMs = this.delayMs): void {
    this.check();
    this.pending = o;
    const delay = Math.min(soonMs, this.delayMs);
    if (this.timer && this.dueAt <= Date.now() + delay) return;
    clearTimeout(this.timer);
    this.dueAt = Date.now() + delay;
    this.timer = setTimeout(() => void this.flush(), delay);
  }

  async now(o: Observation): Promise<void> {
    this.pending = o;
    await this.flush();
    this.check();
  }

  drop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }

  async settle(): Promise<void> {
    await this.chain;
    this.check();
  }

  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const o = this.pending;
    this.pending = undefined;
    if (o) this.chain = this.chain.then(() => this.send(o)).catch((err: unknown) => void (this.failure ??= err));
    return this.chain;
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }
}
