import { recordAudit } from '../../db/queries/audit.js';
import {
  countActiveEndpoints,
  insertEndpoint,
  listEndpoints,
  lockEndpoint,
  lockEndpointList,
  retireEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../db/queries/webhook-endpoints.js';
import type { Database } from '../../db/schema.js';
import type { Kysely } from 'kysely';
import { AppError, validationError } from '../app-error.js';
import type { AllowedNetworks } from '../domain/network.js';
import {
  MAX_ACTIVE_ENDPOINTS,
  newWebhookSecret,
  webhookTargetProblem,
} from '../domain/webhook-endpoints.js';

/*
 * Webhook endpoints, managed by admin clients (docs/LIVE.md, "Webhooks").
 * Each change is one transaction with its audit row: who (the admin
 * client), what, the endpoint before and after. Secrets are never in the
 * audit log, nor in any answer but the one that made them.
 */

export type { WebhookEndpoint };

/** What a registration is checked with: the networks besides public space webhooks may target. */
interface TargetDeps {
  db: Kysely<Database>;
  config: { webhookAllowedNetworks: AllowedNetworks };
}

/** A 400 naming `url` when it targets an address the target rules refuse (docs/SECURITY.md). */
function checkTarget(deps: TargetDeps, url: string | undefined): void {
  if (url === undefined) return;
  const problem = webhookTargetProblem(url, deps.config.webhookAllowedNetworks);
  if (problem) throw validationError([{ path: 'url', message: problem }]);
}

/** An endpoint as the audit log keeps it: what the API shows, no secret. */
function audited(endpoint: WebhookEndpoint) {
  return {
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    source: endpoint.source,
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    retiredAt: endpoint.retiredAt?.toISOString() ?? null,
  };
}

const TARGET_KIND = 'webhook_endpoint';

export function listWebhookEndpoints(deps: { db: Kysely<Database> }): Promise<WebhookEndpoint[]> {
  return listEndpoints(deps.db);
}

export async function createWebhookEndpoint(
  deps: TargetDeps,
  actor: string,
  input: { url: string; description: string | null; eventTypes: string[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  checkTarget(deps, input.url);
  return deps.db.transaction().execute(async (trx) => {
    // Two creations at once must not both pass the count: one waits for the other.
    await lockEndpointList(trx);
    if ((await countActiveEndpoints(trx)) >= MAX_ACTIVE_ENDPOINTS) {
      throw new AppError(
        'WEBHOOK_ENDPOINT_CONFLICT',
        `There are already ${MAX_ACTIVE_ENDPOINTS} webhook endpoints: retire one first`,
      );
    }
    const secret = newWebhookSecret();
    const endpoint = await insertEndpoint(trx, { ...input, secret });
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.create',
      targetKind: TARGET_KIND,
      targetKey: endpoint.id,
      after: audited(endpoint),
    });
    return { endpoint, secret };
  });
}

export async function updateWebhookEndpoint(
  deps: TargetDeps,
  actor: string,
  id: string,
  changes: { url?: string; description?: string | null; eventTypes?: string[]; enabled?: boolean },
): Promise<WebhookEndpoint> {
  checkTarget(deps, changes.url);
  return deps.db.transaction().execute(async (trx) => {
    const before = await changeable(trx, id, 'changed');
    const after = await updateEndpoint(trx, id, changes);
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.update',
      targetKind: TARGET_KIND,
      targetKey: id,
      before: audited(before),
      after: audited(after),
    });
    return after;
  });
}

export async function rotateWebhookEndpointSecret(
  deps: { db: Kysely<Database> },
  actor: string,
  id: string,
  overlapSeconds: number,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await changeable(trx, id, 'rotated');
    const secret = newWebhookSecret();
    const endpoint = await rotateEndpointSecret(trx, id, secret, overlapSeconds);
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.rotate_secret',
      targetKind: TARGET_KIND,
      targetKey: id,
      before: audited(before),
      after: audited(endpoint),
    });
    return { endpoint, secret };
  });
}

/** Retires the endpoint (idempotent: a retired one is answered as it is, and audited once). */
export async function retireWebhookEndpoint(
  deps: { db: Kysely<Database> },
  actor: string,
  id: string,
): Promise<WebhookEndpoint> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await lockEndpoint(trx, id);
    if (!before) throw notFound(id);
    if (before.retiredAt) return before;
    const after = await retireEndpoint(trx, id);
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.retire',
      targetKind: TARGET_KIND,
      targetKey: id,
      before: audited(before),
      after: audited(after),
    });
    return after;
  });
}

/** The endpoint, locked, if an admin may change it: it exists, is not retired, is not the configuration's. */
async function changeable(
  trx: Kysely<Database>,
  id: string,
  verb: 'changed' | 'rotated',
): Promise<WebhookEndpoint> {
  const endpoint = await lockEndpoint(trx, id);
  if (!endpoint) throw notFound(id);
  if (endpoint.retiredAt) {
    throw new AppError(
      'WEBHOOK_ENDPOINT_CONFLICT',
      `The webhook endpoint ${id} is retired: create a new one`,
    );
  }
  if (endpoint.source === 'config') {
    throw new AppError(
      'WEBHOOK_ENDPOINT_CONFLICT',
      `The webhook endpoint ${id} comes from WEBHOOK_URL and WEBHOOK_SECRET and is ${verb} ` +
        'there (every instance applies them at start); retire it once they are unset',
    );
  }
  return endpoint;
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `There is no webhook endpoint ${id}`);
}
