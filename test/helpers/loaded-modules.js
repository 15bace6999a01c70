// Preloaded (NODE_OPTIONS=--require) into a child process: on exit it writes the files it had
// loaded (require.cache) to LOADED_MODULES_FILE, so a test can check what a process never loads.
const fs = require('node:fs');
process.on('exit', () => {
  if (process.env.LOADED_MODULES_FILE)
    fs.writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache)));
});
