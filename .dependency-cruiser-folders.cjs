/**
 * The folder gate (second half of `npm run lint:deps`): no import cycle between folders of src/, so
 * a feature's folder can be read, moved or tested without the ones that use it. Folder-level, not
 * file-level (.dependency-cruiser.cjs has that): scores → sessions → traces → scores was three
 * folders in a cycle with no file cycle among them.
 *
 * A separate run because the files at the top of src/ are excluded here: that folder holds both the
 * kernel (config.ts, context.ts, logger.ts) and the wiring (runtime.ts, routes.ts), so every feature
 * would be in a cycle through it. The layer rules of .dependency-cruiser.cjs keep those files apart.
 */
const base = require('./.dependency-cruiser.cjs');

// Known, not yet removed: events ↔ webhooks (the dispatcher fans out to webhook deliveries and
// webhooks' schemas name the outbox's event kinds). Only the direct edges between the two are let
// through; a longer cycle through either folder still fails.
const KNOWN = '^src/(events|webhooks)$';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders of src/ depend one way: move the shared piece to the side it belongs to (README, "Layout").',
      scope: 'folder',
      from: { path: '^src/', pathNot: KNOWN },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles-known',
      severity: 'error',
      comment: 'events ↔ webhooks is the one known folder cycle; any other cycle through them fails.',
      scope: 'folder',
      from: { path: KNOWN },
      to: { circular: true, pathNot: KNOWN },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: [...base.options.exclude.path, '^src/[^/]+\\.ts$'] },
  },
};
