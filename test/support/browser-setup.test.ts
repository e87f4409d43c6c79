import { afterEach, describe, expect, it } from 'vitest';
import browserSetup from './browser-setup';

describe('npm run test:browser without Chromium', () => {
  const before = process.env.CHROMIUM_PATH;
  afterEach(() => {
    if (before === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = before;
  });

  it('fails before any test, saying how to get one, instead of passing with nothing tested', () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    expect(() => browserSetup()).toThrow('npm run test:browser needs Chromium: sudo apt-get install -y chromium');
  });
});
