import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Failed authentication attempts per client address. Only failures count, so a busy client with a
 * valid token is never slowed down; a client over its budget is refused before its attempt is
 * checked. Counted per instance (each instance allows the budget).
 */
export class FailedAttempts {
  private readonly limiter: RateLimiterMemory;
  /** When a failure was last recorded: while none is recent, no client can be over its budget. */
  private lastFailureAt = -Infinity;

  constructor(private readonly perMinute: number) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  }

  /** False while no failure is recent: then no client is over its budget (no need to ask). */
  anyRecent(): boolean {
    return performance.now() - this.lastFailureAt <= 60_000;
  }

  /** Milliseconds until this client may try again, or 0 when it may try now. */
  async retryAfterMs(client: string): Promise<number> {
    if (!this.anyRecent()) return 0;
    const state = await this.limiter.get(client);
    return state && state.consumedPoints >= this.perMinute ? state.msBeforeNext : 0;
  }

  async record(client: string): Promise<void> {
    this.lastFailureAt = performance.now();
    try {
      await this.limiter.consume(client);
    } catch (error) {
      // Over the budget: the next retryAfterMs() reports it.
      if (!(error instanceof RateLimiterRes)) throw error;
    }
  }
}
