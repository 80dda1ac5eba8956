import * as oauth from 'oauth4webapi';

/** /admin/config.json (src/console/config.ts on the service, plus the issuer it trusts). */
export interface Settings {
  clientId: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  redirectUri?: string;
  scope: string;
  issuer: string;
}

export interface Session {
  token: string;
  scopes: string[];
  /** Who signed in (the token's client_id, else sub), for display only. */
  who: string;
}

/**
 * The PKCE verifier and state of a sign-in under way. The page leaves for the identity provider
 * and comes back, so they are kept in this tab's sessionStorage for that one round trip and
 * removed before the code is exchanged (docs/decisions/0091-console-sign-in.md). The token itself
 * lives in memory only: a reload signs in again.
 */
const PENDING = 'console.sign-in';

export async function loadSettings(): Promise<Settings> {
  const response = await fetch('/admin/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`/admin/config.json answered ${response.status}`);
  return (await response.json()) as Settings;
}

function absolute(url: string): string {
  return new URL(url, window.location.origin).href;
}

function redirectUri(settings: Settings): string {
  return settings.redirectUri ?? `${window.location.origin}/admin/`;
}

function server(settings: Settings): oauth.AuthorizationServer {
  return {
    issuer: settings.issuer,
    authorization_endpoint: absolute(settings.authorizeUrl ?? ''),
    token_endpoint: absolute(settings.tokenUrl ?? ''),
  };
}

/** Sends the browser to the identity provider's authorize endpoint. */
export async function signIn(settings: Settings): Promise<void> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(server(settings).authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('redirect_uri', redirectUri(settings));
  url.searchParams.set('scope', settings.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  window.location.assign(url.href);
}

/**
 * On the way back from the identity provider: takes the code off the URL at once, checks the
 * state and trades the code and verifier for a token. Undefined when this is no such return.
 */
export async function completeSignIn(settings: Settings): Promise<Session | undefined> {
  const here = new URL(window.location.href);
  if (!here.searchParams.has('code') && !here.searchParams.has('error')) return undefined;
  const pending = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  window.history.replaceState(null, '', `${here.pathname}${here.hash}`);
  if (!pending) throw new Error('This sign-in was not started from this tab; sign in again.');
  const { verifier, state } = JSON.parse(pending) as { verifier: string; state: string };
  const as = server(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const params = oauth.validateAuthResponse(as, client, here, state);
  const insecure = new URL(as.token_endpoint!).protocol === 'http:';
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(settings),
    verifier,
    { [oauth.allowInsecureRequests]: insecure },
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response);
  const claims = readClaims(result.access_token);
  const scopes = (result.scope ?? claims.scope ?? '').split(' ').filter(Boolean);
  return { token: result.access_token, scopes, who: claims.client_id ?? claims.sub ?? '' };
}

/** The token's claims, for display and the scope check only (the service verifies it). */
function readClaims(token: string): { sub?: string; client_id?: string; scope?: string } {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json) as { sub?: string; client_id?: string; scope?: string };
  } catch {
    return {};
  }
}
