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

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders of src/ depend one way: move the shared piece to the side it belongs to (README, "Layout").',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: [...base.options.exclude.path, '^src/[^/]+\\.ts$'] },
  },
};
