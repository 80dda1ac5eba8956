import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The console's Leaderboards page (issue 39): the live top of a board moves as points arrive,
 * without a reload; a week's board follows the events recorded in it; a closed week shows its
 * final standings. Every figure is checked against adminLeaderboard's answer. The app's clock is
 * moved to close the week, far from today's.
 */
let now = new Date('2027-08-11T12:00:00.000Z'); // Wednesday of 2027-W32
const { app } = useTestApp({ clock: () => now, env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

const adminToken = () =>
  signDevToken(app.config.dataDir, 'ops-boards-check', { scopes: ['admin'] });

async function onboarded(prefix: string) {
  const subject = uniqueSubject(prefix);
  const handle = `${prefix}${Date.now().toString(36)}`;
  const made = await app.request('POST', '/api/user/profile', {
    token: await signDevToken(app.config.dataDir, subject),
    body: { handle },
  });
  expect(made.status, made.text).toBe(201);
  return { subject, handle, id: made.body.data.user.id as string };
}

async function send(subject: string, type: string) {
  const response = await app.request('POST', '/api/events', {
    token: await signDevToken(app.config.dataDir, 'boards-game', { scopes: ['events:write'] }),
    body: { events: [{ id: uniqueSubject('ev'), subject, type }] },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.data.results[0].status).toBe('recorded');
}

/** [rank, handle, points] of the board as adminLeaderboard answers it. */
async function apiRows(query: string): Promise<string[][]> {
  const read = await app.request('GET', `/api/admin/leaderboard?${query}`, {
    token: await adminToken(),
  });
  expect(read.status, read.text).toBe(200);
  return read.body.data.entries.map((e: any) => [String(e.rank), e.handle, String(e.points)]);
}

/** [rank, handle, points] of the page's table. */
async function pageRows(page: Page): Promise<string[][]> {
  const rows = await page
    .locator('[data-table="board"] tbody tr')
    .evaluateAll((trs: any[]) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.innerText.trim())),
    );
  return rows.map(([rank, handle, , points]: string[]) => [rank!, handle!, points!]);
}

describe('the Leaderboards page', () => {
  it.skipIf(!hasChromium)(
    'moves a row as points arrive, follows the week, and shows a closed week’s standings',
    async () => {
      const [a, b, c] = [await onboarded('lba'), await onboarded('lbb'), await onboarded('lbc')];
      await send(a.subject, 'prediction_correct');
      await send(b.subject, 'match_checkin');

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-boards', { admin: true });
        await page.getByRole('link', { name: 'Leaderboards' }).click();
        await expect.poll(() => page.locator('h1').innerText()).toBe('Leaderboards');
        const status = page.locator('[data-field="board-status"]');
        await expect.poll(() => status.innerText()).toMatch(/live/);

        // The all-time board: the top rows as the API ranks them.
        const before = await apiRows('board=global');
        expect(before.map(([, handle]) => handle)).toEqual([a.handle, b.handle, c.handle]);
        await expect.poll(() => pageRows(page)).toEqual(before);

        // Points arrive for the last fan: their row moves to the top, with no reload.
        await page.evaluate('window.notReloaded = true');
        const adjusted = await app.request('POST', `/api/admin/fans/${c.id}/adjustments`, {
          token: await adminToken(),
          body: { id: uniqueSubject('adj'), points: 500, reason: 'boards test' },
        });
        expect(adjusted.status, adjusted.text).toBe(200);
        await expect
          .poll(() => pageRows(page), { timeout: 15_000 })
          .toEqual(await apiRows('board=global'));
        expect((await pageRows(page))[0]![1]).toBe(c.handle);
        expect(await page.evaluate('window.notReloaded')).toBe(true);

        // This week's board counts the events recorded in it (not the adjustment), and follows them.
        await page.getByRole('button', { name: 'This week' }).click();
        const week = await apiRows('board=week');
        expect(week.map(([, handle]) => handle)).toEqual([a.handle, b.handle, c.handle]);
        await expect.poll(() => pageRows(page)).toEqual(week);
        await send(c.subject, 'prediction_correct');
        await send(c.subject, 'prediction_correct');
        await expect
          .poll(() => pageRows(page), { timeout: 15_000 })
          .toEqual(await apiRows('board=week'));
        expect((await pageRows(page))[0]![1]).toBe(c.handle);
        const finalWeek = await pageRows(page);

        // A week later 2027-W32 has closed: its final standings, from the season picker.
        now = new Date('2027-08-18T12:00:00.000Z');
        await page.getByRole('link', { name: 'Overview' }).click();
        await page.getByRole('link', { name: 'Leaderboards' }).click();
        await page.getByRole('button', { name: 'This week' }).click();
        const season = page.getByLabel('Season');
        await expect
          .poll(() => season.locator('option').allInnerTexts())
          .toEqual(['in progress (2027-W33)', '2027-W32 (closed)']);
        await season.selectOption('2027-W32');
        await expect.poll(() => status.innerText()).toBe(' — final');
        await expect
          .poll(() => page.locator('[data-table="board"] caption').innerText())
          .toMatch(/^Final standings of 2027-W32: top 3/);
        expect(await pageRows(page)).toEqual(finalWeek);
        expect(await pageRows(page)).toEqual(await apiRows('board=week&season=2027-W32'));
        // The week in progress has nobody on it yet.
        await season.selectOption('');
        await expect
          .poll(() => page.locator('[data-table="board"] caption').innerText())
          .toMatch(/^This week: top 0/);
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
