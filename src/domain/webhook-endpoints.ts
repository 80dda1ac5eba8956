import { randomBytes } from 'node:crypto';
import { hostProblem, type AllowedNetworks } from './network.js';

/** The event types a webhook endpoint can receive (every live event but a stream's `resync`). */
export const WEBHOOK_EVENT_TYPES = [
  'quest_completed',
  'points_awarded',
  'rank_changed',
  'streak_extended',
  'streak_lost',
  'account_deleted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints not retired, at most: each has its own delivery slots on every instance. */
export const MAX_ACTIVE_ENDPOINTS = 20;

export const MAX_URL_LENGTH = 2048;

/** How long a rotated-out secret still signs deliveries, by default and at most. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 86_400;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Why `value` cannot be an endpoint URL, or undefined when it can: an
 * absolute http or https URL with a host, without credentials (they would be
 * kept and shown in the audit log) and without a fragment (never sent).
 * Where it points is webhookTargetProblem's question.
 */
export function webhookUrlProblem(value: string): string | undefined {
  if (value.length > MAX_URL_LENGTH) return `At most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an absolute URL, e.g. https://hooks.example.com/fan-events';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an http or https URL';
  if (!url.hostname) return 'Must name a host';
  if (url.username || url.password) {
    return 'Must not carry credentials: receivers verify the signature instead';
  }
  if (url.hash) return 'Must not have a fragment (#…): it is never sent';
  return undefined;
}

/**
 * Why a (valid) endpoint URL may not be registered: its host, as written, is
 * `localhost` or an IP literal outside public unicast space that `allowed`
 * does not hold (docs/decisions/0072). A name is judged at each connection,
 * by the addresses it then resolves to (src/live/webhook-target.ts).
 */
export function webhookTargetProblem(value: string, allowed: AllowedNetworks): string | undefined {
  const problem = hostProblem(new URL(value).hostname, allowed);
  return (
    problem &&
    `Must not target ${problem}: webhooks go to public addresses unless the operator allows ` +
      'the network (WEBHOOK_ALLOWED_NETWORKS)'
  );
}
