import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import { signDevToken } from '../auth/dev-idp.js';
import { SERVICE_SCOPES } from '../auth/principal.js';

/**
 * The development identity provider's OAuth 2.0 endpoints (authorization code with PKCE, RFC 7636),
 * so that `npm start` gives a console one can sign in to: GET /dev-idp/authorize shows a page that
 * picks a subject and scopes, POST /dev-idp/authorize sends the browser back to the client's
 * redirect URI with a one-use code, POST /dev-idp/token trades the code and its verifier for a
 * development token (signDevToken). Mounted only when the development identity provider is the
 * configured one (no AUTH_* variable, never with NODE_ENV=production). Redirect URIs must be on
 * the origin the request came to: this provider signs in to this service only.
 */
export const DEV_IDP_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; " +
  "frame-ancestors 'none'";

const CODE_TTL_MS = 60_000;
/** How long a token from the token endpoint lasts: one hour. */
export const DEV_IDP_TOKEN_TTL_SECONDS = 3600;
const MAX_PENDING_CODES = 1000;

const authorizeQuery = z.object({
  response_type: z.literal('code'),
  client_id: z.string().min(1).max(200),
  redirect_uri: z.url({ protocol: /^https?$/ }),
  state: z.string().min(1).max(500),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  code_challenge_method: z.literal('S256'),
  scope: z.string().max(500).optional(),
});
const authorizeForm = authorizeQuery.extend({
  subject: z.string().trim().min(1).max(200),
  scopes: z.union([z.string(), z.array(z.string())]).optional(),
});
const tokenForm = z.object({
  grant_type: z.literal('authorization_code'),
  code: z.string().min(1).max(200),
  redirect_uri: z.string().min(1).max(2000),
  client_id: z.string().min(1).max(200),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/),
});

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  subject: string;
  scopes: string[];
  expiresAt: number;
}

export function devIdpRouter(dataDir: string): Router {
  const codes = new Map<string, PendingCode>();
  const router = express.Router({ strict: false });
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', DEV_IDP_CSP);
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 }));

  router.get('/authorize', (req, res) => {
    const parsed = authorizeQuery.safeParse(req.query);
    if (!parsed.success) return badRequest(res, 'invalid_request', parsed.error.issues);
    if (!sameOrigin(parsed.data.redirect_uri, req)) return foreignRedirect(res);
    res.type('html').send(authorizePage(parsed.data));
  });

  router.post('/authorize', (req, res) => {
    const parsed = authorizeForm.safeParse(req.body);
    if (!parsed.success) return badRequest(res, 'invalid_request', parsed.error.issues);
    const form = parsed.data;
    if (!sameOrigin(form.redirect_uri, req)) return foreignRedirect(res);
    const picked = [form.scopes ?? []].flat();
    const scopes = SERVICE_SCOPES.filter((scope) => picked.includes(scope));
    const now = Date.now();
    for (const [code, pending] of codes) if (pending.expiresAt <= now) codes.delete(code);
    if (codes.size >= MAX_PENDING_CODES) return badRequest(res, 'temporarily_unavailable', []);
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      clientId: form.client_id,
      redirectUri: form.redirect_uri,
      challenge: form.code_challenge,
      subject: form.subject,
      scopes,
      expiresAt: now + CODE_TTL_MS,
    });
    const target = new URL(form.redirect_uri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', form.state);
    res.redirect(303, target.href);
  });

  router.post('/token', async (req, res, next) => {
    const parsed = tokenForm.safeParse(req.body);
    if (!parsed.success) return badRequest(res, 'invalid_request', parsed.error.issues);
    const form = parsed.data;
    const pending = codes.get(form.code);
    codes.delete(form.code);
    if (
      !pending ||
      pending.expiresAt <= Date.now() ||
      pending.clientId !== form.client_id ||
      pending.redirectUri !== form.redirect_uri ||
      !equal(pkceChallenge(form.code_verifier), pending.challenge)
    ) {
      return badRequest(res, 'invalid_grant', []);
    }
    try {
      const token = await signDevToken(dataDir, pending.subject, {
        ttlSeconds: DEV_IDP_TOKEN_TTL_SECONDS,
        ...(pending.scopes.length > 0 ? { scopes: pending.scopes } : {}),
      });
      res.json({
        access_token: token,
        token_type: 'Bearer',
        expires_in: DEV_IDP_TOKEN_TTL_SECONDS,
        scope: pending.scopes.join(' '),
      });
    } catch (error) {
      next(error);
    }
  });
  return router;
}

/** RFC 7636 S256: BASE64URL(SHA-256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function sameOrigin(redirectUri: string, req: express.Request): boolean {
  return new URL(redirectUri).origin === `${req.protocol}://${req.get('host') ?? ''}`;
}

function badRequest(res: Response, error: string, issues: readonly z.core.$ZodIssue[]): void {
  const description = issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  res.status(400).json({ error, ...(description ? { error_description: description } : {}) });
}

function foreignRedirect(res: Response): void {
  res.status(400).json({
    error: 'invalid_request',
    error_description: 'redirect_uri must be on this service’s origin',
  });
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function authorizePage(query: z.output<typeof authorizeQuery>): string {
  const asked = (query.scope ?? '').split(' ');
  const hidden = Object.entries(query)
    .filter(([name]) => name !== 'scope')
    .map(
      ([name, value]) => `<input type="hidden" name="${name}" value="${escape(String(value))}" />`,
    )
    .join('\n      ');
  const boxes = SERVICE_SCOPES.map(
    (scope) =>
      `<label><input type="checkbox" name="scopes" value="${scope}"${asked.includes(scope) ? ' checked' : ''} /> ${scope}</label>`,
  ).join('\n        ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Development identity provider — sign in</title>
    <link rel="icon" type="image/svg+xml" href="/admin/favicon.svg" />
    <link rel="stylesheet" href="/admin/dev-idp.css" />
  </head>
  <body>
    <main>
      <h1>Development identity provider</h1>
      <p>Sign in to <strong>${escape(query.client_id)}</strong> as any subject. For development only.</p>
      <form method="post" action="/dev-idp/authorize">
      ${hidden}
        <label for="subject">Subject</label>
        <input id="subject" name="subject" required maxlength="200" value="operator" autocomplete="off" />
        <fieldset>
          <legend>Scopes</legend>
        ${boxes}
        </fieldset>
        <button type="submit">Sign in</button>
      </form>
    </main>
  </body>
</html>
`;
}
