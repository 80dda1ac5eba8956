/**
 * What the examples of every area share (src/openapi-examples.ts merges the
 * areas' maps): the shape of a named example, a success body, and the fans
 * the examples are about.
 */

/** One named example, as OpenAPI's `examples` map holds it. */
export interface NamedExample {
  summary: string;
  value: unknown;
}

export type Examples = Record<string, NamedExample>;

export const ALICE = '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35';
export const BEN = '9a1e7c42-5d3b-4f8a-b6c1-2e0d8f4a7b19';
export const CARA = 'c5d80b3f-1a6e-4b29-8f7d-6e3a9c1b2d40';

/** A success response named `name`: the envelope around `data`. */
export const ok = (name: string, summary: string, data: unknown): Examples => ({
  [name]: { summary, value: { success: true, data } },
});
