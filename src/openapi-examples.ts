/**
 * Named examples for openapi.json: one realistic request per write and one
 * realistic answer per success response, shaped like what the service sends
 * (Redocly checks each against its schema; test/platform/docs/openapi-examples.test.ts
 * sends every request example to the service). Swagger UI prefills "Try it
 * out" with the first request example, so each one succeeds for a new user.
 */
import { ADMIN_REQUEST_EXAMPLES, ADMIN_RESPONSE_EXAMPLES } from './openapi-examples-admin.js';
import {
  ADMIN_CHANGE_REQUEST_EXAMPLES,
  ADMIN_CHANGE_RESPONSE_EXAMPLES,
} from './openapi-examples-admin-changes.js';
import type { Examples } from './openapi-examples-common.js';
import { EVENTS_REQUEST_EXAMPLES, EVENTS_RESPONSE_EXAMPLES } from './openapi-examples-events.js';
import { FAN_REQUEST_EXAMPLES, FAN_RESPONSE_EXAMPLES } from './openapi-examples-fan.js';
import { LEADERBOARD_RESPONSE_EXAMPLES } from './openapi-examples-leaderboard.js';
import {
  WEBHOOK_REQUEST_EXAMPLES,
  WEBHOOK_RESPONSE_EXAMPLES,
} from './openapi-examples-webhooks.js';

/** Request body examples by operation id: the first one is what Swagger UI prefills. */
export const REQUEST_EXAMPLES: Record<string, Examples> = {
  ...ADMIN_REQUEST_EXAMPLES,
  ...FAN_REQUEST_EXAMPLES,
  ...EVENTS_REQUEST_EXAMPLES,
  ...ADMIN_CHANGE_REQUEST_EXAMPLES,
  ...WEBHOOK_REQUEST_EXAMPLES,
};

/** Success response examples by operation id and status. */
export const RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  ...ADMIN_RESPONSE_EXAMPLES,
  ...FAN_RESPONSE_EXAMPLES,
  ...LEADERBOARD_RESPONSE_EXAMPLES,
  ...EVENTS_RESPONSE_EXAMPLES,
  ...WEBHOOK_RESPONSE_EXAMPLES,
  ...ADMIN_CHANGE_RESPONSE_EXAMPLES,
};
