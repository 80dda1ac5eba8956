import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * axe-core on every page of the console (issue 39): no serious or critical violation. axe is
 * injected as a script, which the console's CSP forbids, so this browser bypasses the CSP (the
 * other console tests keep it).
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = (await page.evaluate('axe.run(document)')) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the console’s accessibility', () => {
  it.skipIf(!hasChromium)(
    'has no serious or critical axe violation on any page',
    async () => {
      const subject = uniqueSubject('fan');
      const made = await app.request('POST', '/api/user/profile', {
        token: await signDevToken(app.config.dataDir, subject),
        body: {},
      });
      expect(made.status, made.text).toBe(201);
      const browser = await openConsoleBrowser({ bypassCSP: true });
      try {
        const { page } = browser;
        const found: Record<string, string[]> = {};
        await page.goto(`${app.url}/admin/`);
        found['sign-in'] = await seriousViolations(page);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(/\/dev-idp\/authorize\?/);
        found['authorize'] = await seriousViolations(page);
        await page.goto(`${app.url}/admin/`);
        await signIn(page, app.url, 'ops-axe', { admin: true });
        for (const [name, hash, ready] of [
          ['overview', '#/overview', 'Overview'],
          ['fans', '#/fans', 'Fans'],
          ['fan', `#/fans/${made.body.data.user.id}`, 'Boards'],
          ['game', '#/game', 'Game'],
          ['leaderboards', '#/leaderboards', 'Leaderboards'],
          ['audit', '#/audit', 'Audit'],
          ['webhooks', '#/webhooks', 'Webhooks'],
        ] as const) {
          await page.goto(`${app.url}/admin/${hash}`);
          await expect.poll(() => page.getByRole('heading', { name: ready }).count()).toBe(1);
          // Pages that read first: axe looks once what they read is shown.
          if (name === 'overview') {
            await expect.poll(() => page.locator('canvas[data-chart]').count()).toBe(4);
          }
          if (name === 'leaderboards') {
            await expect
              .poll(() => page.locator('[data-table="board"] caption').innerText())
              .toMatch(/^All-time: top 1 — live/);
          }
          if (name === 'webhooks') {
            await expect
              .poll(() => page.locator('[data-table="endpoints"] caption').innerText())
              .toBe('0 endpoints');
          }
          found[name] = await seriousViolations(page);
        }
        await page.getByRole('button', { name: 'Sign out' }).click();
        await signIn(page, app.url, uniqueSubject('fan'), { admin: false });
        found['not-operator'] = await seriousViolations(page);
        expect(found).toEqual({
          'sign-in': [],
          authorize: [],
          overview: [],
          fans: [],
          fan: [],
          game: [],
          leaderboards: [],
          audit: [],
          webhooks: [],
          'not-operator': [],
        });
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
