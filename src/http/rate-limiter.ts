/**
 * Counts failures per key (a client address) in fixed one-minute windows. Memory stays
 * bounded: windows that ended are dropped when the map is swept.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the key may try again, or 0 when it is not blocked. */
  retryAfter(key: string): number {
    const entry = this.current(key);
    if (!entry || entry.failures < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.start + this.windowMs - this.now()) / 1000));
  }

  recordFailure(key: string): void {
    const entry = this.current(key);
    if (entry) entry.failures += 1;
    else {
      if (this.windows.size > 10_000) this.sweep();
      this.windows.set(key, { start: this.now(), failures: 1 });
    }
  }

  private current(key: string): { start: number; failures: number } | undefined {
    const entry = this.windows.get(key);
    if (entry && this.now() - entry.start >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.windows) if (now - entry.start >= this.windowMs) this.windows.delete(key);
  }
}
