import * as fs from 'node:fs';

/**
 * `npm run test:browser`'s first step: without a Chromium the browser tests cannot run, and a
 * command that passes without testing anything would say the inbox works when nobody looked. So it
 * fails, saying how to get one (Debian's package; no browser is downloaded).
 */
export default function browserSetup(): void {
  const found = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(fs.existsSync);
  if (!found || !fs.existsSync(found))
    throw new Error(
      'npm run test:browser needs Chromium: sudo apt-get install -y chromium (or set CHROMIUM_PATH to one). No browser test ran.',
    );
}
