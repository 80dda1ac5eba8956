import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The console's Fans page (issue 39): find a fan, ban them with a reason (asked to confirm);
 * the fan's next event is rejected; unban, and the next one counts. Then an adjustment with a
 * note. Every step through the real service, database and browser.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

async function sendCheckin(subject: string) {
  const token = await signDevToken(app.config.dataDir, 'checkin-service', {
    scopes: ['events:write'],
  });
  const response = await app.request('POST', '/api/events', {
    token,
    body: { events: [{ id: uniqueSubject('ev'), subject, type: 'match_checkin' }] },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results[0] as { status: string; error?: { code: string } };
}

describe('the Fans page', () => {
  it.skipIf(!hasChromium)(
    'bans a fan (their next event is rejected), lifts the ban and adjusts the balance',
    async () => {
      const subject = uniqueSubject('fan');
      const handle = `banme${Date.now().toString(36)}`;
      const made = await app.request('POST', '/api/user/profile', {
        token: await signDevToken(app.config.dataDir, subject),
        body: { handle },
      });
      expect(made.status, made.text).toBe(201);

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-fans', { admin: true });
        await page.getByLabel('Handle, subject or id').fill(subject);
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('link', { name: handle }).click();
        await expect.poll(() => page.locator('[data-field="status"]').innerText()).toBe('active');

        const ban = page.getByRole('form', { name: 'Ban this fan' });
        await ban.getByLabel('Reason').fill('abusive chat');
        await ban.getByRole('button', { name: 'Ban' }).click();
        const confirm = page.getByRole('dialog');
        expect(await confirm.innerText()).toContain(`Ban @${handle}? Reason: abusive chat`);
        await confirm.getByRole('button', { name: 'Confirm' }).click();
        await expect.poll(() => page.getByRole('status').innerText()).toBe(`@${handle} is banned.`);
        await expect
          .poll(() => page.locator('[data-field="status"]').innerText())
          .toMatch(/^banned since /);

        expect(await sendCheckin(subject)).toMatchObject({
          status: 'rejected',
          error: { code: 'FAN_BANNED' },
        });

        const unban = page.getByRole('form', { name: 'Lift the ban' });
        await unban.getByLabel('Reason').fill('appeal upheld');
        await unban.getByRole('button', { name: 'Unban' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await expect.poll(() => page.locator('[data-field="status"]').innerText()).toBe('active');
        const counted = await sendCheckin(subject);
        expect(counted.status).toBe('recorded');

        await page.reload();
        await signIn(page, app.url, 'ops-fans', { admin: true });
        await page.goto(`${app.url}/admin/#/fans/${made.body.data.user.id}`);
        await expect.poll(() => page.locator('[data-field="balance"]').count()).toBe(1);
        const before = Number(await page.locator('[data-field="balance"]').innerText());
        const adjust = page.getByRole('form', { name: 'Adjust the balance' });
        await adjust.getByLabel('Points (+/−)').fill('15');
        await adjust.getByLabel('Note').fill('stadium screen outage');
        await adjust.getByRole('button', { name: 'Adjust' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await expect
          .poll(() => page.locator('[data-field="balance"]').innerText())
          .toBe(String(before + 15));

        const audit = await app.request('GET', '/api/admin/audit', {
          token: await signDevToken(app.config.dataDir, 'ops-fans', { scopes: ['admin'] }),
        });
        const actions = (audit.body.data.entries as { action: string; actor: string }[])
          .filter((entry) => entry.actor === 'ops-fans')
          .map((entry) => entry.action);
        expect(actions).toEqual(['fan.adjust', 'fan.unban', 'fan.ban']);
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
