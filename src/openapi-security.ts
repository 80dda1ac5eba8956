/**
 * openapi.json's security schemes: a fan's bearer token, and a service's
 * client-credentials token with the scopes it may hold.
 */
import type { SecuritySchemeObject } from 'trpc-to-openapi';
import type { ServiceScope } from './auth/principal.js';

/**
 * The service scopes as the client-credentials scheme declares them (every
 * scope of src/auth/principal.ts, each described). The token endpoint is the
 * identity provider's, which the service does not know: an example
 * (docs/decisions/0061).
 */
export const SERVICE_SCOPE_DESCRIPTIONS: Readonly<Record<ServiceScope, string>> = {
  'events:write': 'Record your events and reverse them (POST /api/events, /api/events/reversals)',
  admin: 'The admin API: definitions, fans, reversals of any client’s events, audit, webhooks',
};
const SERVICE_TOKEN_URL_EXAMPLE = 'https://id.fan-app.example/oauth2/token';

/** The schemes, new each time: a fan's token (bearerAuth) and a service's (serviceAuth). */
export function securitySchemes(): Record<string, SecuritySchemeObject> {
  return {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'A fan’s JWT from the identity provider, for the fan operations. Locally, ' +
        '`npm run token -- <subject>` prints one.',
    },
    serviceAuth: {
      type: 'oauth2',
      description:
        'A service’s OAuth 2.0 client-credentials access token (a JWT, RFC 9068) from the ' +
        'same identity provider, holding the scope the operation’s requirement names. Get it ' +
        'from your provider’s token endpoint (its discovery document’s `token_endpoint`; the ' +
        '`tokenUrl` here is an example). Locally, ' +
        '`npm run token -- --service <client-id> --scope <scope>` prints one.',
      flows: {
        clientCredentials: {
          tokenUrl: SERVICE_TOKEN_URL_EXAMPLE,
          scopes: { ...SERVICE_SCOPE_DESCRIPTIONS },
        },
      },
    },
  };
}
