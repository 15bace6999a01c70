import { CIRCUIT_OPEN_ERROR, EndpointGuard, isTimeout } from '../../../src/webhooks/endpoint-guard';

/** The per-webhook in-flight cap and circuit of docs/webhooks.md#isolation-a-slow-receiver, on a fake clock. */
describe('EndpointGuard', () => {
  let now = 1_000_000;
  const guard = (over: Partial<ConstructorParameters<typeof EndpointGuard>[0]> = {}) =>
    new EndpointGuard({
      maxInFlight: 2,
      sendWindowMs: 10_000,
      circuitTimeouts: 3,
      circuitOpenMs: 60_000,
      busyWakesPerSecond: 10,
      now: () => now,
      ...over,
    });
  const timeout = { errorMessage: 'timeout after 10 s' };
  const send = (g: EndpointGuard, key = 'w1') => {
    const a = g.admit(key);
    if (a.kind !== 'send') throw new Error(`expected send, got ${a.kind}`);
    return a.release;
  };

  it('caps sends in flight per webhook, says when a place frees at the latest, and keeps webhooks apart', () => {
    const g = guard();
    const r1 = send(g);
    now += 3_000;
    send(g);
    expect(g.admit('w1')).toEqual({ kind: 'busy', retryInMs: 7_000, wakeAt: now + 7_000 });
    // paced: 10 wake-ups a second
    expect(g.admit('w1')).toEqual({ kind: 'busy', retryInMs: 7_100, wakeAt: now + 7_100 });
    expect(g.admit('w2').kind).toBe('send'); // another webhook is not held up
    r1({ errorMessage: null });
    expect(g.admit('w1').kind).toBe('send');
  });

  it('opens the circuit after N consecutive timeouts for the open period; an answer closes it', () => {
    const g = guard({ maxInFlight: 5 });
    const releases = [send(g), send(g), send(g)];
    releases[0]!(timeout);
    releases[1]!(timeout);
    expect(g.admit('w1').kind).toBe('send'); // two timeouts: still closed (that admit is left in flight)
    releases[2]!(timeout);
    expect(g.admit('w1')).toEqual({ kind: 'circuit_open' });
    // Failing fast is paced too: the next caller gets a turn, and passes it back when woken.
    const turn = g.admit('w1');
    expect(turn).toEqual({ kind: 'busy', retryInMs: 100, wakeAt: now + 100 });
    now += 100;
    expect(g.admit('w1', now).kind).toBe('circuit_open');
    now += 60_001;
    const probe = send(g);
    probe(timeout); // still timing out: open again at once
    expect(g.admit('w1').kind).toBe('circuit_open');
    now += 60_001;
    send(g)({ errorMessage: 'HTTP 500' }); // an answer, even an error, closes it
    expect(g.admit('w1').kind).toBe('send');
  });

  it(
    'a release without an outcome (nothing sent) frees the place and leaves the circuit alone; ' +
      'a second release is ignored',
    () => {
      const g = guard({ maxInFlight: 1, circuitTimeouts: 1 });
      const r = send(g);
      r();
      r(timeout);
      expect(g.admit('w1').kind).toBe('send');
    },
  );

  it('circuit off with 0; timeouts are recognised by safe-http’s wording', () => {
    const g = guard({ circuitTimeouts: 0 });
    for (let i = 0; i < 5; i++) send(g)(timeout);
    expect(g.admit('w1').kind).toBe('send');
    expect(isTimeout('timeout after 2 s')).toBe(true);
    expect(isTimeout(CIRCUIT_OPEN_ERROR)).toBe(false);
    expect(isTimeout(null)).toBe(false);
  });
});
