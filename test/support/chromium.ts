import * as fs from 'node:fs';

/** Finding Debian's Chromium for the browser tests (no browser is downloaded). */

const INSTALL = 'sudo apt-get install -y chromium (or set CHROMIUM_PATH to one)';

/** Chromium's path: `CHROMIUM_PATH`, else Debian's package; undefined when there is none. */
export function findChromium(): string | undefined {
  const found = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(fs.existsSync);
  return found && fs.existsSync(found) ? found : undefined;
}

/**
 * Chromium for a browser test file, or undefined (its tests are skipped) after saying so. On CI a
 * missing Chromium throws: a browser test that tests nothing must not pass there.
 */
export function chromiumOrSkip(): string | undefined {
  const found = findChromium();
  if (!found) {
    if (process.env.CI) throw new Error(`No Chromium for the browser test: ${INSTALL}.`);
    process.stderr.write(`Skipping the browser test: no Chromium (${INSTALL}).\n`);
  }
  return found;
}
