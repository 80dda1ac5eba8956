import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The console's Game and Audit pages (issue 39): an edit of match_checkin is checked with the
 * API's own zod schema, shows its diff against the version in force, and once saved the next
 * check-in awards the new points; the audit page shows the change with before and after.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

async function checkin(subject: string) {
  const token = await signDevToken(app.config.dataDir, 'checkin-service', {
    scopes: ['events:write'],
  });
  const response = await app.request('POST', '/api/events', {
    token,
    body: { events: [{ id: uniqueSubject('ev'), subject, type: 'match_checkin' }] },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results[0] as { status: string; points: number };
}

describe('the Game and Audit pages', () => {
  it.skipIf(!hasChromium)(
    'changes match_checkin’s points (validated, diffed); the next check-in awards them; the audit shows it',
    async () => {
      const subject = uniqueSubject('fan');
      const made = await app.request('POST', '/api/user/profile', {
        token: await signDevToken(app.config.dataDir, subject),
        body: {},
      });
      expect(made.status, made.text).toBe(201);
      const before = await checkin(subject);
      expect(before).toMatchObject({ status: 'recorded', points: 10 });

      // A minute ago, as a datetime-local field holds it (local time, the browser's as ours).
      const ago = new Date(Date.now() - 60_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      const sinceLocal =
        `${ago.getFullYear()}-${pad(ago.getMonth() + 1)}-${pad(ago.getDate())}` +
        `T${pad(ago.getHours())}:${pad(ago.getMinutes())}`;

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-game', { admin: true });
        await page.getByRole('link', { name: 'Game' }).click();
        await page.getByRole('button', { name: 'Edit event_type/match_checkin' }).click();
        const editor = page.getByLabel('Definition (JSON)');
        const current = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
        expect(current).toMatchObject({ kind: 'event_type', key: 'match_checkin', points: 10 });

        // The API's schema refuses what the API would refuse, before anything is sent.
        await editor.fill(JSON.stringify({ ...current, points: -3 }, null, 2));
        await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/^points: /);
        expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);

        await editor.fill(JSON.stringify({ ...current, points: 17 }, null, 2));
        const diff = page.locator('[data-table="diff"] tbody tr');
        await expect.poll(() => diff.allInnerTexts()).toEqual(['points\t10\t17']);
        await page.getByRole('button', { name: 'Save' }).click();
        const dialog = page.getByRole('dialog');
        expect(await dialog.innerText()).toContain('changing points?');
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect
          .poll(() => page.getByRole('status').innerText())
          .toMatch(/^Version \d+ of event_type\/match_checkin is in force\.$/);

        expect(await checkin(subject)).toMatchObject({ status: 'recorded', points: 17 });

        await page.getByRole('link', { name: 'Audit' }).click();
        await page.getByLabel('Target kind').selectOption('definition');
        await page.getByLabel(/^Target \(/).fill('event_type/match_checkin');
        await page.getByLabel('Actor').fill('ops-game');
        await page.getByLabel(/^Action/).fill('definition');
        await page.getByLabel('Since').fill(sinceLocal);
        // The filters are the service's: the query carries them (not a filter of pages read).
        const filtered = page.waitForRequest(
          (request) =>
            request.url().includes('/trpc/adminAuditLog') &&
            decodeURIComponent(request.url()).includes('"actor":"ops-game"') &&
            decodeURIComponent(request.url()).includes('"action":"definition"') &&
            decodeURIComponent(request.url()).includes('"since":"'),
        );
        await page.getByRole('button', { name: 'Filter' }).click();
        await filtered;
        const rows = page.locator('[data-table="audit"] tbody tr');
        await expect.poll(() => rows.count()).toBe(1);
        const cells = await rows.first().locator('td').allInnerTexts();
        expect(cells.slice(1, 4)).toEqual([
          'ops-game',
          'definition.update',
          'definition event_type/match_checkin',
        ]);
        expect(JSON.parse(cells[4]!)).toMatchObject({ definition: { points: 10 } });
        expect(JSON.parse(cells[5]!)).toMatchObject({ definition: { points: 17 } });

        // A family with no such change: nothing.
        await page.getByLabel(/^Action/).fill('fan');
        await page.getByRole('button', { name: 'Filter' }).click();
        await expect.poll(() => rows.count()).toBe(0);
        await expect
          .poll(() => page.locator('[data-table="audit"] caption').innerText())
          .toBe('0 entries');
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
