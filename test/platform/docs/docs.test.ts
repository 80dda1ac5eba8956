import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../../src/http/docs.js';
import { REQUEST_EXAMPLES } from '../../../src/openapi-examples.js';

import { CHROMIUM, hasChromium, inCi, openConsoleBrowser } from '../../helpers/console-browser.js';
import { useTestApp } from '../../helpers/test-app.js';

const SCREENSHOT = fileURLToPath(new URL('../../artifacts/docs.png', import.meta.url));

const { app, database } = useTestApp();

describe('GET /docs — the page and its assets', () => {
  it('serves Swagger UI from this service with its own CSP and no inline script', async () => {
    const page = await app.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((script) => script[1]?.trim())).toEqual([
      'src="/docs/swagger-ui-bundle.js"',
      'src="/docs/init.js"',
    ]);
    expect(scripts.every((script) => script[2] === '')).toBe(true);
    expect(page.text).not.toMatch(/https?:\/\//);

    for (const [asset, type] of [
      ['/docs/swagger-ui-bundle.js', /^text\/javascript/],
      ['/docs/swagger-ui.css', /^text\/css/],
      ['/docs/init.js', /^text\/javascript/],
    ] as const) {
      const response = await app.request('GET', asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type')).toMatch(type);
      expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    }
    const init = await app.request('GET', '/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
  });

  it('allows nothing beyond what the page needs', () => {
    expect(DOCS_CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });
});

describe('GET /docs — in a browser', () => {
  it.runIf(!hasChromium && inCi)('has Chromium at /usr/bin/chromium under CI', () => {
    expect.fail(`CI=true but ${CHROMIUM} is missing: install it (apt-get install -y chromium)`);
  });

  it.skipIf(!hasChromium)(
    'takes a bearer token and executes both writes with their prefilled example bodies',
    async () => {
      const browser = await openConsoleBrowser();
      try {
        const { page, problems, origins } = browser;
        await page.goto(`${app.url}/docs`);
        const patchOperation = page.locator('#operations-user-updateUser');
        const onboardOperation = page.locator('#operations-user-onboardProfile');
        await expect.poll(() => patchOperation.count()).toBe(1);
        await expect.poll(() => onboardOperation.count()).toBe(1);
        expect(await patchOperation.locator('.opblock-summary-method').innerText()).toBe('PATCH');
        expect(await onboardOperation.locator('.opblock-summary-path').innerText()).toContain(
          '/api/user/profile',
        );

        const token = await app.token();
        await page.locator('.auth-wrapper .authorize').click();
        // The fan's scheme (bearerAuth); service tokens have a client-credentials one beside it.
        const fanScheme = page
          .locator('.modal-ux .auth-container')
          .filter({ hasText: 'bearerAuth' });
        await fanScheme.locator('input[type=text], input:not([type])').fill(token);
        await fanScheme.locator('.auth-btn-wrapper button.authorize').click();
        await fanScheme.locator('.auth-btn-wrapper button.btn-done').click();

        /** Try it out → Execute with the body Swagger UI prefilled; the live response. */
        const executePrefilled = async (operation: typeof patchOperation) => {
          await operation.locator('.opblock-summary-control').click();
          await operation.locator('.try-out__btn').click();
          const prefilled = await operation.locator('textarea.body-param__text').inputValue();
          await operation.locator('.execute').click();
          const live = operation.locator('.live-responses-table .response');
          await expect.poll(() => live.count()).toBe(1);
          return {
            prefilled: JSON.parse(prefilled) as Record<string, unknown>,
            status: await live.locator('.response-col_status').innerText(),
            shown: JSON.parse(await live.locator('.microlight').first().innerText()) as {
              success: boolean;
              data: Record<string, any>;
            },
          };
        };

        // The first request example of each write is what the page prefills.
        const patch = await executePrefilled(patchOperation);
        expect(patch.prefilled).toEqual(REQUEST_EXAMPLES.updateUser!.editProfile!.value);
        expect(patch.status).toMatch(/^200/);
        expect(patch.shown.success).toBe(true);
        expect(patch.shown.data).toMatchObject(patch.prefilled);

        const onboard = await executePrefilled(onboardOperation);
        expect(onboard.prefilled).toEqual(REQUEST_EXAMPLES.onboardProfile!.onboard!.value);
        expect(onboard.status).toMatch(/^201/);
        expect(onboard.shown.success).toBe(true);
        // The prefilled example claims no handle, so every reader can follow it.
        expect(onboard.shown.data.user).toMatchObject({ name: 'Alice Martin', handle: null });
        expect(onboard.shown.data.user.onboardedAt).not.toBeNull();
        expect(onboard.shown.data.questSync.pointsAwarded).toBeGreaterThan(0);

        await mkdir(join(SCREENSHOT, '..'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
        expect(problems).toEqual([]);
        expect([...origins]).toEqual([app.url]);
      } finally {
        await browser.close();
      }
    },
    // Chromium start-up and two live requests; slow on a loaded CI machine.
    120_000,
  );
});
