import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The console's Overview page (issue 39): the figures and the four charts (Chart.js on canvas)
 * of what the service recorded, over the last hour and day, against a fresh database.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

async function send(events: Array<{ subject: string; type: string }>) {
  const token = await signDevToken(app.config.dataDir, 'overview-game', {
    scopes: ['events:write'],
  });
  const response = await app.request('POST', '/api/events', {
    token,
    body: { events: events.map((e) => ({ id: uniqueSubject('ev'), ...e })) },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as Array<{ status: string; points?: number }>;
}

describe('the Overview page', () => {
  it.skipIf(!hasChromium)(
    'shows events, points, active fans and rejections, as figures and charts',
    async () => {
      // Rejections are this process's count (other files in the worker may have added some).
      const rejectedBefore = async () => {
        const read = await app.request('GET', '/api/admin/overview', {
          token: await signDevToken(app.config.dataDir, 'ops-check', { scopes: ['admin'] }),
        });
        const byCode = read.body.data.rejections.byCode as Array<{ code: string; count: number }>;
        return byCode.find((r) => r.code === 'UNKNOWN_EVENT_TYPE')?.count ?? 0;
      };
      const unknownBefore = await rejectedBefore();
      const [a, b, c] = [uniqueSubject('fan'), uniqueSubject('fan'), uniqueSubject('fan')];
      const results = await send([
        { subject: a, type: 'match_checkin' },
        { subject: b, type: 'match_checkin' },
        { subject: c, type: 'prediction_correct' },
        { subject: c, type: 'not_a_type' },
      ]);
      const points = results.reduce((sum, r) => sum + (r.points ?? 0), 0);
      expect(points).toBeGreaterThanOrEqual(45);

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-overview', { admin: true });
        await page.getByRole('link', { name: 'Overview' }).click();
        const field = (name: string) => page.locator(`[data-field="${name}"]`).innerText();
        await expect.poll(() => field('events')).toBe('3');
        expect(await field('points')).toBe(String(points));
        expect(await field('active-fans')).toBe('3');
        expect(await field('outbox-lag')).toBe('0');
        expect(await field('endpoints')).toBe('0 / 0');
        expect(await page.locator('[data-list="rejections"] li').allInnerTexts()).toContain(
          `UNKNOWN_EVENT_TYPE: ${unknownBefore + 1}`,
        );
        const events = page.locator('canvas[data-chart="events"]');
        expect(await events.getAttribute('aria-label')).toBe(
          'Events per minute by type: match_checkin 2, prediction_correct 1 in the last hour',
        );
        // Each chart drew something: its canvas has pixels that are not blank.
        for (const name of ['events', 'points', 'rejections', 'deliveries']) {
          const drawn = await page
            .locator(`canvas[data-chart="${name}"]`)
            .evaluate((canvas: any) => {
              const { data } = canvas
                .getContext('2d')!
                .getImageData(0, 0, canvas.width, canvas.height);
              let inked = 0;
              for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) inked += 1;
              return inked;
            });
          expect(drawn, name).toBeGreaterThan(100);
        }

        await page.getByRole('button', { name: 'Last day' }).click();
        await expect
          .poll(() => page.getByText('Events per minute by type (last day)').count())
          .toBe(1);
        await expect.poll(() => field('events')).toBe('3');
        expect(
          await page.getByRole('button', { name: 'Last day' }).getAttribute('aria-pressed'),
        ).toBe('true');
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
