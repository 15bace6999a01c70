/**
 * `npm run bundle:workflows [file]`: bundles the workflow code once (default dist/workflow-bundle.js), for
 * TEMPORAL_WORKFLOW_BUNDLE, so worker processes start without running webpack (the image does this).
 */
import path from 'node:path';
import { writeWorkflowBundle } from '../src/temporal/worker';

const file = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist', 'workflow-bundle.js'));
writeWorkflowBundle(file).then(
  () => process.stdout.write(`workflow bundle: ${file}\n`),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
