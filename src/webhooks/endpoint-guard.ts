/**
 * Isolation between webhooks on one worker (docs/webhooks.md#isolation-a-slow-receiver).
 *
 * A receiver that hangs holds a local-activity slot for the whole send window. Without a bound, a
 * backlog of deliveries to one such receiver takes every slot and the worker's other webhooks wait
 * behind it. Two rules, per webhook, on this worker:
 *
 * - **In-flight cap**: at most `maxInFlight` sends at once. An attempt that finds the cap reached is
 *   not made (no attempt number, nothing sent); the workflow waits on a durable timer and asks again.
 * - **Circuit**: after `circuitTimeouts` consecutive timeouts, attempts in the next `circuitOpenMs`
 *   fail at once, as counted failed attempts (`endpoint timing out`), so the spec's waits between
 *   attempts and its 5-attempt limit apply unchanged. Any answer or non-timeout failure closes it.
 * - **Turns**: deliveries told to wait (busy, or circuit open without a turn) get wake-up times
 *   `1/busyWakesPerSecond` apart, so a backlog of hundreds comes back as a trickle: a burst of their
 *   workflow tasks and statements would queue every other webhook's behind it.
 *
 * Built once per worker by the runtime and handed to the activities (no module-level state).
 */

export interface EndpointGuardOptions {
  maxInFlight: number;
  /** The send window (WEBHOOK_ATTEMPT_TIMEOUT_MS): a send in flight ends by its start plus this. */
  sendWindowMs: number;
  /** Consecutive timeouts that open the circuit; 0 disables it. */
  circuitTimeouts: number;
  circuitOpenMs: number;
  /** Wake-ups handed to a busy webhook's waiting deliveries per second (paces its backlog). */
  busyWakesPerSecond: number;
  now?: () => number;
}

/** The error of an attempt failed by an open circuit. */
export const CIRCUIT_OPEN_ERROR = 'endpoint timing out';

/** `timeout after N s`: the send window passed (safe-http's wording). */
export const isTimeout = (errorMessage: string | null) => !!errorMessage && errorMessage.startsWith('timeout after');

interface EndpointState {
  /** Start times of the sends in flight (at most maxInFlight). */
  inFlight: number[];
  consecutiveTimeouts: number;
  openUntil: number;
  /** The next free wake-up time for a delivery told `busy` (epoch ms). */
  nextWakeAt: number;
}

/**
 * `release(outcome)` after a send feeds the circuit; `release()` (nothing sent) only frees the place. Only the first
 * call counts.
 */
export type Admission =
  | { kind: 'send'; release: (outcome?: { errorMessage: string | null }) => void }
  /** Ask again at `wakeAt` (this worker's clock, in `retryInMs`), passing `wakeAt` back: that slot is the caller's. */
  | { kind: 'busy'; retryInMs: number; wakeAt: number }
  | { kind: 'circuit_open' };

export class EndpointGuard {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly now: () => number;

  constructor(private readonly opts: EndpointGuardOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Whether webhook `key` may send now. `send` takes an in-flight place: call `release` with the
   * outcome exactly once (it feeds the circuit). `wokenFor`: the `wakeAt` of the caller's last
   * `busy` answer. Cheap and synchronous: the happy path pays a map lookup.
   */
  admit(key: string, wokenFor?: number): Admission {
    const s = this.state(key);
    const now = this.now();
    if (this.opts.circuitTimeouts > 0 && s.openUntil > now) {
      // Failing fast still costs a workflow task and two statements: a backlog of hundreds takes
      // its turns at the pace too (a slot of its own, or the pace idle), never all at once.
      if ((wokenFor !== undefined && wokenFor <= now) || s.nextWakeAt <= now) {
        if (wokenFor === undefined) s.nextWakeAt = now + this.paceMs();
        return { kind: 'circuit_open' };
      }
      return this.busy(s, now, now);
    }
    // Wake no sooner than the first send in flight ends at the latest (a place frees, or the circuit
    // has its answer), one after another at a steady pace: a backlog of hundreds then reaches the
    // worker as a trickle instead of a burst that queues every other webhook's tasks.
    if (s.inFlight.length >= this.opts.maxInFlight)
      return this.busy(s, now, Math.min(...s.inFlight) + this.opts.sendWindowMs);
    s.inFlight.push(now);
    let released = false;
    return {
      kind: 'send',
      release: (outcome) => {
        if (released) return;
        released = true;
        s.inFlight.splice(s.inFlight.indexOf(now), 1);
        if (outcome && isTimeout(outcome.errorMessage)) {
          s.consecutiveTimeouts++;
          if (this.opts.circuitTimeouts > 0 && s.consecutiveTimeouts >= this.opts.circuitTimeouts)
            s.openUntil = this.now() + this.opts.circuitOpenMs;
        } else if (outcome) {
          // an answer (or a quick failure): the endpoint does not hold sends, the circuit closes
          s.consecutiveTimeouts = 0;
          s.openUntil = 0;
        }
        if (s.inFlight.length === 0 && s.consecutiveTimeouts === 0 && s.nextWakeAt <= this.now())
          this.endpoints.delete(key);
      },
    };
  }

  private paceMs(): number {
    return 1000 / this.opts.busyWakesPerSecond;
  }

  private busy(s: EndpointState, now: number, earliest: number): Admission {
    const wakeAt = Math.max(earliest, s.nextWakeAt);
    s.nextWakeAt = wakeAt + this.paceMs();
    return { kind: 'busy', retryInMs: wakeAt - now, wakeAt };
  }

  private state(key: string): EndpointState {
    let s = this.endpoints.get(key);
    if (!s) this.endpoints.set(key, (s = { inFlight: [], consecutiveTimeouts: 0, openUntil: 0, nextWakeAt: 0 }));
    return s;
  }
}

export function endpointGuardFromConfig(config: {
  WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: number;
  WEBHOOK_ATTEMPT_TIMEOUT_MS: number;
  WEBHOOK_CIRCUIT_TIMEOUTS: number;
  WEBHOOK_CIRCUIT_OPEN_MS: number;
  WEBHOOK_BUSY_WAKES_PER_S: number;
}): EndpointGuard {
  return new EndpointGuard({
    maxInFlight: config.WEBHOOK_ENDPOINT_MAX_IN_FLIGHT,
    sendWindowMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    circuitTimeouts: config.WEBHOOK_CIRCUIT_TIMEOUTS,
    circuitOpenMs: config.WEBHOOK_CIRCUIT_OPEN_MS,
    busyWakesPerSecond: config.WEBHOOK_BUSY_WAKES_PER_S,
  });
}
