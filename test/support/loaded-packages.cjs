// Preloaded into a CLI process (NODE_OPTIONS=--require …): when the process exits, writes the
// packages it loaded (`@temporalio/worker`, `openai`, …), one a line, to LOADED_PACKAGES_OUT.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) packages.add(match[1]);
  }
  fs.writeFileSync(process.env.LOADED_PACKAGES_OUT, [...packages].sort().join('\n'));
});
