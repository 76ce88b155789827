import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_BIN points elsewhere. */
export const CHROMIUM_BIN = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));

/**
 * Whether the browser tests can run. With CI=true a missing Chromium is a
 * failure, never a skip; elsewhere the skip is announced.
 */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(CHROMIUM_BIN);
  if (!available && process.env.CI === 'true') {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_BIN}, and CI=true forbids skipping ${what}. Install it (apt-get install chromium) or set CHROMIUM_BIN.`,
    );
  }
  if (!available)
    console.warn(`\n⚠ Chromium not found at ${CHROMIUM_BIN}: SKIPPING ${what} (set CI=true to make this a failure).\n`);
  return available;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Host names resolved to 127.0.0.1 (`--host-resolver-rules`): pages on other origins served from this machine. */
  loopbackHosts?: readonly string[];
}

/** Headless Chromium with a fresh profile, nothing talking to the network but the pages under test. */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'tollgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_BIN,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      ...(options.loopbackHosts?.length
        ? [`--host-resolver-rules=${options.loopbackHosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`]
        : []),
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A full-page screenshot under test-artifacts/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface ConsoleErrors {
  /** The errors seen since the last call (console errors and uncaught exceptions, each with the page's URL), and forgets them. */
  take(): string[];
}

/**
 * Collects what a page logs as an error: `console.error`, the browser's own
 * messages (a resource that failed to load, a CSP violation, a CORS refusal)
 * and uncaught exceptions. A test asserts `take()` is empty after each visit.
 */
export function collectConsoleErrors(page: Page): ConsoleErrors {
  let seen: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const { url } = message.location();
    seen.push(`${page.url()}: ${message.text()}${url ? ` (${url})` : ''}`);
  });
  page.on('pageerror', (error) => seen.push(`${page.url()}: uncaught ${error.message}`));
  return {
    take() {
      const taken = seen;
      seen = [];
      return taken;
    },
  };
}
