/**
 * `npm run console:screenshots`: a PNG of each console page in docs/images/, for the README
 * and docs/OPERATIONS.md. Starts the service (src/server.ts, the embedded database in a
 * temporary folder, the development identity provider), gives it a little game to show (fans,
 * events, a rejection, an adjustment, a webhook endpoint with a receiver here), signs in through
 * the authorize page in Chromium (playwright-core, /usr/bin/chromium) and takes each page.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { signDevToken } from '../src/auth/dev-idp.js';
import { startServerProcess } from '../test/helpers/server-process.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { data: any };
}

/** A few fans, their events (one rejected), an adjustment and a webhook endpoint. */
async function seed(url: string, dataDir: string, receiverUrl: string) {
  const fans = ['alice', 'ben', 'chloe', 'dev', 'erin'];
  const ids: string[] = [];
  for (const [i, fan] of fans.entries()) {
    const made = await call(
      url,
      await signDevToken(dataDir, `shot-${fan}`),
      'POST',
      '/api/user/profile',
      {
        handle: `${fan}fan`,
        favoriteTeam: i % 2 ? 'Leeds United' : 'Hooks FC',
      },
    );
    ids.push(made.data.user.id);
  }
  const game = await signDevToken(dataDir, 'stadium-app', { scopes: ['events:write'] });
  const events = fans.flatMap((fan, i) => [
    { id: `shot-${fan}-checkin`, subject: `shot-${fan}`, type: 'match_checkin' },
    ...Array.from({ length: i + 1 }, (_, n) => ({
      id: `shot-${fan}-read-${n}`,
      subject: `shot-${fan}`,
      type: 'article_read',
      value: 2,
    })),
  ]);
  events.push({ id: 'shot-bad', subject: 'shot-ben', type: 'halftime_quiz' });
  await call(url, game, 'POST', '/api/events', { events });
  const admin = await signDevToken(dataDir, 'ops-screenshots', { scopes: ['admin'] });
  await call(url, admin, 'POST', `/api/admin/fans/${ids[1]}/adjustments`, {
    id: 'shot-adjust',
    points: 50,
    reason: 'Stadium screen outage',
  });
  const hook = await call(url, admin, 'POST', '/api/admin/webhook-endpoints', {
    url: receiverUrl,
    eventTypes: ['points_awarded', 'quest_completed'],
  });
  await call(url, admin, 'POST', `/api/admin/webhook-endpoints/${hook.data.endpoint.id}/test`, {});
  return ids;
}

async function signIn(page: Page, url: string) {
  await page.goto(`${url}/admin/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dev-idp\/authorize\?/);
  await page.getByLabel('Subject').fill('ops-screenshots');
  const admin = page.getByLabel('admin', { exact: true });
  if (!(await admin.isChecked())) await admin.check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/admin/`);
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'console-shots-'));
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end()));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const server = await startServerProcess({
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    ALLOW_EMBEDDED_DATABASE: 'true',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const ids = await seed(server.url, dataDir, receiverUrl);
    await mkdir(OUT, { recursive: true });
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await signIn(page, server.url);
    const shots: Array<[string, string, () => Promise<unknown>]> = [
      ['overview', '#/overview', () => page.locator('canvas[data-chart]').nth(3).waitFor()],
      ['fan', `#/fans/${ids[1]}`, () => page.locator('[data-field="balance"]').waitFor()],
      [
        'game',
        '#/game',
        () =>
          page
            .getByRole('button', { name: /^Edit / })
            .first()
            .waitFor(),
      ],
      [
        'leaderboards',
        '#/leaderboards',
        () => page.locator('[data-table="board"] tbody tr').first().waitFor(),
      ],
      ['audit', '#/audit', () => page.locator('[data-table="audit"] tbody tr').first().waitFor()],
      [
        'webhooks',
        '#/webhooks',
        async () => {
          await page
            .getByRole('button', { name: /^Manage / })
            .first()
            .click();
          await page.locator('[data-table="deliveries"] tbody tr').first().waitFor();
        },
      ],
    ];
    for (const [name, hash, ready] of shots) {
      await page.goto(`${server.url}/admin/${hash}`);
      await ready();
      await page.waitForTimeout(300); // the charts' first paint
      const file = join(OUT, `console-${name}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${file}`);
    }
  } finally {
    await browser.close();
    await server.stop();
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
