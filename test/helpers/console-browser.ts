import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium, as the /docs browser test uses it (test/platform/docs/docs.test.ts). */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const inCi = process.env.CI === 'true';

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and 4xx/5xx responses other than those a test expects. */
  problems: string[];
  /** Every request's origin. */
  origins: Set<string>;
  close(): Promise<void>;
}

let shared: Promise<Browser> | undefined;

/**
 * One headless Chromium per test worker: files of the shared project keep
 * their worker's modules (vitest.config.ts), so every browser test the worker
 * runs opens its pages in it instead of starting a Chromium of its own.
 * Playwright kills it when the worker exits; one that crashed or was closed is
 * launched again on the next call.
 */
function workerBrowser(): Promise<Browser> {
  shared ??= chromium
    .launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    .then((browser) => {
      browser.once('disconnected', () => (shared = undefined));
      return browser;
    })
    .catch((error: unknown) => {
      shared = undefined;
      throw error;
    });
  return shared;
}

/**
 * A fresh browser context (its own cookies, storage and cache, like a new
 * profile) in the worker's Chromium, with one page watched for problems.
 */
export async function openConsoleBrowser(
  options: { bypassCSP?: boolean } = {},
): Promise<ConsoleBrowser> {
  const context = await (
    await workerBrowser()
  ).newContext({
    viewport: { width: 1280, height: 800 },
    bypassCSP: options.bypassCSP ?? false,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const origins = new Set<string>();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return {
    context,
    page,
    problems,
    origins,
    close: () => context.close(),
  };
}

/**
 * Signs in to the console at `baseUrl` through the development identity provider's authorize
 * page as `subject`, with the admin scope or without it, using the keyboard and the form as a
 * person would.
 */
export async function signIn(
  page: Page,
  baseUrl: string,
  subject: string,
  { admin }: { admin: boolean },
): Promise<void> {
  await page.goto(`${baseUrl}/admin/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dev-idp\/authorize\?/);
  await page.getByLabel('Subject').fill(subject);
  const adminBox = page.getByLabel('admin', { exact: true });
  if ((await adminBox.isChecked()) !== admin) await adminBox.setChecked(admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/admin/`);
  await expect.poll(() => page.locator('main h1').first().count()).toBe(1);
}
