// Debian's chromium driven by playwright-core (browser downloads are unreachable, so it drives the system's own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

/** The browser: CHROMIUM_PATH, else the first of Debian's and other distributions' names found on PATH. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

/**
 * The skip reason for a file's browser tests (false when they can run). In CI (`CI` set) a missing browser also
 * registers a failing test, so the run cannot pass without the console having been tried in a browser.
 */
export function browserSkip(what: string): string | false {
  if (chromiumPath()) return false;
  const missing = 'chromium is not installed (apt-get install -y chromium)';
  if (process.env.CI) {
    test(`chromium is installed (${what} need it)`, () => assert.fail(missing));
    return `${missing}: failed above`;
  }
  return `${missing}; skipped outside CI`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-quic',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
