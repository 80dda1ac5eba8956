import { describe, expect, it } from 'vitest';
import { FAILURE_BACKOFF_MS } from '../../../src/auth/remote-keys.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';
import { startTokenIssuer } from '../../helpers/token-issuer.js';
import { isErrorLine, raw, useExtraApps } from '../../helpers/raw-http.js';

/**
 * The identity provider failing: while the JWKS answers 500, requests share one back-off (few
 * fetches, 503 with Retry-After, one warn per attempt) and the service recovers by itself.
 */

const { database } = useTestApp();
const appWith = useExtraApps(() => database);

describe('identity provider failing', () => {
  it('backs off: 100 requests while the JWKS answers 500 make at most 2 fetches, each a 503 with Retry-After; one warn with the cause; recovers by itself', async () => {
    const idp = await startTokenIssuer();
    try {
      const failing = await appWith({ issuer: idp });
      idp.setAvailable(false, 'server-error');
      const tokens = await Promise.all(
        Array.from({ length: 10 }, () => idp.sign(uniqueSubject('idp'))),
      );
      const statuses = new Map<number, number>();
      for (let wave = 0; wave < 10; wave += 1) {
        const answers = await Promise.all(
          tokens.map((token) =>
            raw(failing.url, '/api/user', { headers: { authorization: `Bearer ${token}` } }),
          ),
        );
        for (const answer of answers) {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
          const retryAfter = Number(answer.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(FAILURE_BACKOFF_MS / 1000);
        }
      }
      expect([...statuses]).toEqual([[503, 100]]);
      expect(idp.requests).toBeGreaterThanOrEqual(1);
      expect(idp.requests).toBeLessThanOrEqual(2);

      const warnings = failing.logs
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'identity provider keys cannot be fetched; backing off');
      expect(warnings.length).toBe(idp.requests);
      expect(warnings[0].level).toBe('warn');
      expect(warnings[0].err.message).toContain(idp.jwksUrl);
      expect(warnings[0].err.message).toContain('500');
      expect(failing.logs.some(isErrorLine)).toBe(false);

      // Back up: the next attempt after the backoff succeeds, without a restart.
      idp.setAvailable(true);
      const deadline = Date.now() + 4 * FAILURE_BACKOFF_MS;
      let answer = await raw(failing.url, '/api/user', {
        headers: { authorization: `Bearer ${tokens[0]}` },
      });
      while (answer.status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        answer = await raw(failing.url, '/api/user', {
          headers: { authorization: `Bearer ${tokens[0]}` },
        });
      }
      expect(answer.status).toBe(200);
      expect(idp.requests).toBeLessThanOrEqual(3);
    } finally {
      await idp.stop();
    }
  });
});
