/** Settles like `promise`, or rejects with `onTimeout()` once `ms` have passed; never leaves a timer behind. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/** A point in time that a chain of steps shares, so the whole chain stays within one budget. */
export class Deadline {
  readonly #endsAt: number;

  constructor(budgetMs: number) {
    this.#endsAt = performance.now() + budgetMs;
  }

  remainingMs(): number {
    return Math.max(0, Math.ceil(this.#endsAt - performance.now()));
  }
}
