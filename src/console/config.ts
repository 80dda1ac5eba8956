import { z } from 'zod';

/**
 * The operator's console's sign-in settings (docs/OPERATIONS.md, The console): an OAuth 2.0
 * public client using the authorization code grant with PKCE against the configured identity
 * provider. With the development identity provider (no AUTH_* variable) the authorize and token
 * endpoints default to its own (/dev-idp/authorize, /dev-idp/token).
 */
export interface ConsoleConfig {
  /** The console's client id at the identity provider. */
  readonly clientId: string;
  /** Where the browser is sent to sign in; undefined: sign-in is not configured. */
  readonly authorizeUrl: string | undefined;
  /** Where the console exchanges the code for a token (fetch, so CSP connect-src allows it). */
  readonly tokenUrl: string | undefined;
  /** The redirect URI registered for the console; undefined: `<origin>/admin/` of the page. */
  readonly redirectUri: string | undefined;
  /** The scopes the console asks for, space-separated. */
  readonly scope: string;
}

const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const url = z.preprocess(
  blankToUndefined,
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
);

/** The console's environment variables (merged into the service's schema, src/config.ts). */
export const consoleEnvShape = {
  CONSOLE_CLIENT_ID: z.preprocess(blankToUndefined, z.string().trim().default('console')),
  CONSOLE_AUTHORIZE_URL: url,
  CONSOLE_TOKEN_URL: url,
  CONSOLE_REDIRECT_URI: url,
  CONSOLE_SCOPE: z.preprocess(blankToUndefined, z.string().trim().default('admin')),
};

type ConsoleEnv = z.output<z.ZodObject<typeof consoleEnvShape>>;

export const DEV_AUTHORIZE_PATH = '/dev-idp/authorize';
export const DEV_TOKEN_PATH = '/dev-idp/token';

export function consoleConfig(env: ConsoleEnv, devIdentityProvider: boolean): ConsoleConfig {
  return Object.freeze({
    clientId: env.CONSOLE_CLIENT_ID,
    authorizeUrl:
      env.CONSOLE_AUTHORIZE_URL ?? (devIdentityProvider ? DEV_AUTHORIZE_PATH : undefined),
    tokenUrl: env.CONSOLE_TOKEN_URL ?? (devIdentityProvider ? DEV_TOKEN_PATH : undefined),
    redirectUri: env.CONSOLE_REDIRECT_URI,
    scope: env.CONSOLE_SCOPE,
  });
}
