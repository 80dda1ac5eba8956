import type { z } from 'zod';
import { createSchema } from 'zod-openapi';

type JsonObject = Record<string, unknown>;

/**
 * The JSON Schema of a zod schema as its output (what the service sends),
 * through zod-openapi as openapi.json's other schemas are. Schemas named with
 * `.meta({ id })` become `$ref`s to `<refPath><id>`, added to `components`;
 * one already there (from the operations, possibly with rules added to it) is
 * kept. Shared by openapi.json's webhooks and asyncapi.json's messages.
 */
export function outputSchema(
  schema: z.ZodType,
  components: Record<string, JsonObject>,
  refPath = '#/components/schemas/',
): JsonObject {
  const result = createSchema(schema, {
    io: 'output',
    openapiVersion: '3.1.0',
    schemaRefPath: refPath,
  });
  for (const [name, component] of Object.entries(result.components)) {
    components[name] ??= component as JsonObject;
  }
  return result.schema as JsonObject;
}
