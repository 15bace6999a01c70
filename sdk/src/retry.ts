export interface RetryPolicy {
  /** Attempts in total, including the first. */
  attempts: number;
  /** Delay before the 2nd attempt; each later delay doubles. */
  initialDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, initialDelayMs: 200 };

export interface Retryable {
  retryable: boolean;
  attempts: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Delay after failed attempt `n` (1-based): 200, 400, 800, ... for the default policy. */
export function retryDelay(policy: RetryPolicy, n: number): number {
  return policy.initialDelayMs * 2 ** (n - 1);
}

/**
 * Runs `attempt` until it succeeds, throws a non-retryable error, or the attempts run out.
 * No jitter: the SDK sends from one process to one gateway, and a fixed schedule is what
 * the documented 200 ms / 400 ms contract promises. The error that ends the loop is
 * rethrown with `attempts` set.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const e = err as Partial<Retryable>;
      if (typeof e === 'object' && e !== null) e.attempts = n;
      if (!e?.retryable || n >= policy.attempts) throw err;
      await wait(retryDelay(policy, n));
    }
  }
}
