import { findChromium } from './chromium';

/**
 * `npm run test:browser`'s first step: without a Chromium the browser tests cannot run, and a
 * command that passes without testing anything would say the inbox works when nobody looked. So it
 * fails, saying how to get one (Debian's package; no browser is downloaded).
 */
export default function browserSetup(): void {
  if (!findChromium())
    throw new Error(
      'npm run test:browser needs Chromium: sudo apt-get install -y chromium (or set CHROMIUM_PATH to one). No browser test ran.',
    );
}
