import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { useTestApp } from '../../helpers/test-app.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';

/**
 * The console's Webhooks page (issue 39): add an endpoint (its secret shown once), rotate the
 * secret, send a test event that a real receiver on 127.0.0.1 verifies with the new secret, see
 * the delivery in the log, pause the endpoint. Every step through the real service and browser.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '', ...LOOPBACK_RECEIVERS } });
const receiver = new Receiver();
afterAll(() => receiver.close());

describe('the Webhooks page', () => {
  it.skipIf(!hasChromium)(
    'adds an endpoint, rotates its secret, and a test delivery verifies with the new one',
    async () => {
      await receiver.listen();
      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-hooks', { admin: true });
        await page.getByRole('link', { name: 'Webhooks' }).click();
        await expect.poll(() => page.locator('h1').innerText()).toBe('Webhooks');

        const add = page.getByRole('form', { name: 'Add an endpoint' });
        await add.getByLabel('URL').fill(receiver.url);
        await add.getByLabel('points_awarded').check();
        await add.getByRole('button', { name: 'Add' }).click();
        const confirm = page.getByRole('dialog');
        expect(await confirm.innerText()).toContain(`Send points_awarded to ${receiver.url}?`);
        await confirm.getByRole('button', { name: 'Confirm' }).click();
        const secretField = page.locator('[data-field="secret"]');
        await expect.poll(() => secretField.count()).toBe(1);
        const first = await secretField.innerText();
        expect(first).toMatch(/^whsec_/);
        await page.getByRole('button', { name: 'I have kept it' }).click();
        expect(await secretField.count()).toBe(0);

        const row = page.locator('[data-table="endpoints"] tbody tr');
        await expect.poll(() => row.count()).toBe(1);
        expect(await row.first().innerText()).toContain('points_awarded');
        await page.getByRole('button', { name: `Manage ${receiver.url}` }).click();

        const rotate = page.getByRole('form', { name: 'Rotate the secret' });
        await rotate.getByRole('button', { name: 'Rotate' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await expect.poll(() => secretField.count()).toBe(1);
        const second = await secretField.innerText();
        expect(second).toMatch(/^whsec_/);
        expect(second).not.toBe(first);
        await expect
          .poll(() => rotate.getByRole('status').innerText())
          .toMatch(/^Rotated: the previous secret signs until /);

        const test = page.getByRole('form', { name: 'Send a test event' });
        await test.getByRole('button', { name: 'Send test' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await expect
          .poll(() => test.getByRole('status').innerText(), { timeout: 15_000 })
          .toBe('Test event: delivered (HTTP 200).');
        expect(receiver.requests).toHaveLength(1);
        const delivery = receiver.requests[0]!;
        const headers = delivery.headers as Record<string, string>;
        // The new secret verifies it on its own (the old one still signs during the overlap).
        expect(new Webhook(second).verify(delivery.body, headers)).toMatchObject({
          type: 'webhook_test',
        });
        expect(() =>
          new Webhook('whsec_' + Buffer.from('not the secret').toString('base64')).verify(
            delivery.body,
            headers,
          ),
        ).toThrow();

        const log = page.locator('[data-table="deliveries"] tbody tr');
        await expect.poll(() => log.count(), { timeout: 10_000 }).toBe(1);
        const cells = await log.first().locator('td').allInnerTexts();
        expect(cells.slice(2, 6)).toEqual(['webhook_test', '1', 'delivered', '200']);

        const pause = page.getByRole('form', { name: 'Disable the endpoint' });
        await pause.getByRole('button', { name: 'Disable' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await expect
          .poll(() => row.first().locator('[data-field="state"]').innerText())
          .toBe('disabled');
        const listed = await app.request('GET', '/api/admin/webhook-endpoints', {
          token: await signDevToken(app.config.dataDir, 'ops-check', { scopes: ['admin'] }),
        });
        expect(listed.body.data.endpoints[0]).toMatchObject({ url: receiver.url, enabled: false });
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
