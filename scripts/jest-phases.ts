/**
 * Runs the service's jest suite in two phases (`npm test` calls this; extra arguments go to both):
 *
 * 1. every file except those below, two at a time (most tests wait on timers, HTTP and Temporal, so
 *    two workers on two cores nearly halve the wall time). A third worker cut the phase from 13.5 to
 *    10 minutes (the cores sat idle a quarter of the time with two), but in three CI runs it made
 *    test races show up that two workers had not: more time-sensitive files first;
 * 2. the files whose assertions are about time, one at a time, so no other test file competes with
 *    them for the cores: the slow-receiver drill (a healthy webhook's p50 ≤ 1 s beside a hanging one),
 *    the shutdown drills (a process must exit within seconds of SIGTERM) and the schedule recipe (a
 *    schedule's lateness under 5 s).
 *
 * Both phases always run; the exit status is the first failure's. Named files (`npm test -- test/unit`)
 * run once, as plain jest would. With JEST_JSON set, the summary
 * reporter adds each phase's counts to the same file.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const SERIAL = [
  'test/integration/webhooks/slow-receiver.test.ts',
  'test/integration/shutdown.test.ts',
  'test/integration/proxy/shutdown-drill.test.ts',
  'test/integration/temporal/operators-schedules.test.ts',
];

const jest = path.join(__dirname, '..', 'node_modules', '.bin', 'jest');
const args = process.argv.slice(2);
const escape = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const run = (extra: string[]) => spawnSync(jest, [...args, ...extra], { stdio: 'inherit' }).status ?? 1;

// Files named on the command line (`npm test -- test/unit`): one run of just those, as jest would.
if (args.some((a) => !a.startsWith('-'))) process.exit(run([]));
const parallel = run(['--maxWorkers=2', ...SERIAL.map((f) => `--testPathIgnorePatterns=${escape(f)}`)]);
const serial = run(['--maxWorkers=1', ...SERIAL.map(escape)]);
process.exit(parallel || serial);
