import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { hasChromium, openConsoleBrowser, signIn } from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The console with the keyboard alone (issue 39): sign in through the development identity
 * provider, find a fan, ban them with a reason and confirm, open a team's live board and this
 * week's; Tab, typing, Enter and Space only.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

/** What the focused element is called: its label, its aria-label or its text. */
function focused(page: Page): Promise<string> {
  // A string: the test's compiler has no DOM types; this runs in the page.
  return page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return '';
    const label = el.labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent;
    return el.tagName.toLowerCase() + ':' + (label ?? '').trim();
  })()`);
}

/** Presses Tab until the focused element is `target` (tag:name), at most 60 times. */
async function tabTo(page: Page, target: string): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i += 1) {
    const now = await focused(page);
    if (now === target) return;
    seen.push(now);
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}; it went through ${seen.join(' | ')}`);
}

describe('the console with the keyboard alone', () => {
  it.skipIf(!hasChromium)(
    'signs in, finds a fan and bans them with a confirmation',
    async () => {
      const subject = uniqueSubject('fan');
      const handle = `keys${Date.now().toString(36)}`;
      const made = await app.request('POST', '/api/user/profile', {
        token: await signDevToken(app.config.dataDir, subject),
        body: { handle },
      });
      expect(made.status, made.text).toBe(201);

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await page.goto(`${app.url}/admin/`);
        await tabTo(page, 'button:Sign in');
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/dev-idp\/authorize\?/);
        await tabTo(page, 'input:Subject');
        await page.keyboard.type('ops-keys');
        await tabTo(page, 'input:admin');
        if (!(await page.evaluate('document.activeElement.checked'))) {
          await page.keyboard.press('Space');
        }
        await tabTo(page, 'button:Sign in');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${app.url}/admin/`);

        await tabTo(page, 'input:Handle, subject or id');
        await page.keyboard.type(subject);
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByRole('link', { name: handle }).count()).toBe(1);
        await tabTo(page, `a:${handle}`);
        await page.keyboard.press('Enter');
        await expect.poll(() => page.locator('[data-field="status"]').innerText()).toBe('active');

        await tabTo(page, 'input:Reason');
        await page.keyboard.type('keyboard ban');
        await tabTo(page, 'button:Ban');
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog');
        await expect.poll(() => dialog.isVisible()).toBe(true);
        expect(await dialog.innerText()).toContain(`Ban @${handle}? Reason: keyboard ban`);
        // The modal dialog takes the focus: its first button is Confirm.
        await tabTo(page, 'button:Confirm');
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByRole('status').innerText()).toBe(`@${handle} is banned.`);
        await expect
          .poll(() => page.locator('[data-field="status"]').innerText())
          .toMatch(/^banned since /);

        const fan = await app.request('GET', `/api/admin/fans/${made.body.data.user.id}`, {
          token: await signDevToken(app.config.dataDir, 'ops-check', { scopes: ['admin'] }),
        });
        expect(fan.body.data.fan.bannedAt).not.toBeNull();
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );

  it.skipIf(!hasChromium)(
    'opens a team’s live board and this week’s',
    async () => {
      const team = `Keys ${Date.now().toString(36)}`;
      const handle = `board${Date.now().toString(36)}`;
      const made = await app.request('POST', '/api/user/profile', {
        token: await signDevToken(app.config.dataDir, uniqueSubject('fan')),
        body: { handle, favoriteTeam: team },
      });
      expect(made.status, made.text).toBe(201);
      const row = `1\t${handle}\t\t${made.body.data.user.points}`;

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-keys-boards', { admin: true });
        await tabTo(page, 'a:Leaderboards');
        await page.keyboard.press('Enter');
        await tabTo(page, 'button:Team');
        await page.keyboard.press('Enter');
        await tabTo(page, 'input:Team');
        await page.keyboard.type(team);
        await page.keyboard.press('Enter');
        const rows = page.locator('[data-table="board"] tbody tr');
        await expect.poll(() => rows.allInnerTexts()).toEqual([row]);
        await expect
          .poll(() => page.locator('[data-field="board-status"]').innerText())
          .toMatch(/live/);

        await tabTo(page, 'button:This week');
        await page.keyboard.press('Space');
        await expect
          .poll(() => page.locator('[data-table="board"] caption').innerText())
          .toMatch(/^This week: top [1-9]/);
        // This file's other fans may be on the week's board too; this one is, with its points.
        const week = (await rows.allInnerTexts()).map((text) => text.split('\t').slice(1));
        expect(week).toContainEqual(row.split('\t').slice(1));
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});
