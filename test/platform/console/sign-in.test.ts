import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../../src/auth/dev-idp.js';
import { pkceChallenge } from '../../../src/http/dev-idp.js';
import { consoleCsp } from '../../../src/http/console.js';
import {
  hasChromium,
  inCi,
  CHROMIUM,
  openConsoleBrowser,
  signIn,
} from '../../helpers/console-browser.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The operator's console at /admin (issue 39): static files with their own CSP, sign-in through
 * the development identity provider (authorization code + PKCE), the token in memory only, and a
 * fan's token sees a "not an operator" page and no data.
 */
const { app } = useTestApp({ env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });

const VERIFIER = 'a'.repeat(43);

async function authorize(fields: Record<string, string>) {
  const body = new URLSearchParams({
    response_type: 'code',
    client_id: 'console',
    redirect_uri: `${app.url}/admin/`,
    state: 'state-1',
    code_challenge: pkceChallenge(VERIFIER),
    code_challenge_method: 'S256',
    subject: 'operator-1',
    scopes: 'admin',
    ...fields,
  });
  return fetch(`${app.url}/dev-idp/authorize`, {
    method: 'POST',
    body,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function exchange(code: string, fields: Record<string, string> = {}) {
  return fetch(`${app.url}/dev-idp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${app.url}/admin/`,
      client_id: 'console',
      code_verifier: VERIFIER,
      ...fields,
    }),
  });
}

describe('GET /admin — the built console and its policy', () => {
  it('serves the built page with external scripts only, under a CSP of its own', async () => {
    const page = await app.request('GET', '/admin/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy');
    expect(csp).toBe(consoleCsp(app.config.console));
    expect(csp).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((script) => /src="\/admin\/assets\//.test(script[1]!))).toBe(true);
    expect(scripts.every((script) => script[2] === '')).toBe(true);

    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(page.text)![1]!;
    const asset = await app.request('GET', script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('content-security-policy')).toBe(csp);

    const bare = await fetch(`${app.url}/admin`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/admin/']);
    const settings = await app.request('GET', '/admin/config.json');
    expect(settings.body).toEqual({
      clientId: 'console',
      authorizeUrl: '/dev-idp/authorize',
      tokenUrl: '/dev-idp/token',
      scope: 'admin',
      issuer: app.config.auth.issuer,
    });
  });
});

describe('the development identity provider — authorization code with PKCE', () => {
  it('gives a one-use code for this origin that only its verifier redeems', async () => {
    const answer = await authorize({});
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(`${app.url}/admin/`);
    expect(back.searchParams.get('state')).toBe('state-1');
    const code = back.searchParams.get('code')!;

    const wrong = await exchange(code, { code_verifier: 'b'.repeat(43) });
    expect([wrong.status, ((await wrong.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_grant',
    ]);
    // The failed attempt used the code up.
    const again = await exchange(code);
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_grant',
    ]);

    const fresh = new URL((await authorize({})).headers.get('location')!).searchParams.get('code')!;
    const token = await exchange(fresh);
    expect(token.status).toBe(200);
    const body = (await token.json()) as { access_token: string };
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'admin', expires_in: 3600 });
    const audit = await app.request('GET', '/api/admin/audit', { token: body.access_token });
    expect(audit.status, audit.text).toBe(200);
    expect((await exchange(fresh)).status).toBe(400);
  });

  it('refuses a redirect to another origin and a request without PKCE', async () => {
    const foreign = await authorize({ redirect_uri: 'https://elsewhere.example/admin/' });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    const plain = await authorize({ code_challenge_method: 'plain' });
    expect(plain.status).toBe(400);
    const page = await fetch(`${app.url}/dev-idp/authorize?response_type=code&client_id=console`);
    expect(page.status).toBe(400);
  });
});

describe('the console in a browser', () => {
  it.runIf(!hasChromium && inCi)('has Chromium at /usr/bin/chromium under CI', () => {
    expect.fail(`CI=true but ${CHROMIUM} is missing: install it (apt-get install -y chromium)`);
  });

  it.skipIf(!hasChromium)(
    'signs an operator in through the development identity provider; the token stays in memory',
    async () => {
      const fanSubject = uniqueSubject('fan');
      const handle = `console${Date.now().toString(36)}`;
      const fanToken = await signDevToken(app.config.dataDir, fanSubject);
      const made = await app.request('POST', '/api/user/profile', {
        token: fanToken,
        body: { handle, name: 'Console Fan' },
      });
      expect(made.status, made.text).toBe(201);

      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        await signIn(page, app.url, 'ops-sign-in', { admin: true });
        await expect.poll(() => page.getByRole('heading', { name: 'Fans' }).count()).toBe(1);
        expect(await page.locator('.who').innerText()).toContain('ops-sign-in');
        // Nothing of the sign-in is left in the URL or in storage.
        expect(page.url()).toBe(`${app.url}/admin/`);
        const stored = await page.evaluate('[localStorage.length, sessionStorage.length]');
        expect(stored).toEqual([0, 0]);
        const cookies = await browser.context.cookies();
        expect(cookies).toEqual([]);

        await page.getByLabel('Handle, subject or id').fill(handle);
        await page.keyboard.press('Enter');
        await page.getByRole('link', { name: handle }).click();
        await expect.poll(() => page.getByRole('heading', { name: `@${handle}` }).count()).toBe(1);
        expect(await page.locator('[data-field="status"]').innerText()).toBe('active');

        // A reload forgets the token: the console asks to sign in again.
        await page.reload();
        await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
        expect(browser.problems).toEqual([]);
        expect([...browser.origins]).toEqual([app.url]);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  it.skipIf(!hasChromium)(
    'shows a fan’s token a "not an operator" page and no data',
    async () => {
      const browser = await openConsoleBrowser();
      try {
        const { page } = browser;
        const answered: string[] = [];
        page.on('response', (response) => {
          if (new URL(response.url()).pathname.startsWith('/trpc')) answered.push(response.url());
        });
        await signIn(page, app.url, uniqueSubject('fan'), { admin: false });
        await expect
          .poll(() => page.getByRole('heading', { name: 'Not an operator' }).count())
          .toBe(1);
        expect(await page.getByRole('navigation').count()).toBe(0);
        expect(answered).toEqual([]);
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
