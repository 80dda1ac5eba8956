import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, envSchema, loadConfig } from '../../src/config.js';

/** `.env.example`'s `NAME=value` lines, in order. */
async function example(): Promise<[string, string][]> {
  const text = await readFile(new URL('../../.env.example', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (!match) throw new Error(`.env.example: not a NAME=value line: ${line}`);
      return [match[1]!, match[2]!];
    });
}

describe('.env.example', () => {
  it('lists every variable src/config.ts reads, once, and nothing else', async () => {
    const names = (await example()).map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives each variable its default (empty only where the default is unset)', async () => {
    const shape = envSchema.shape as Record<string, { parse(value: unknown): unknown }>;
    for (const [name, value] of await example()) {
      const fallback = shape[name]!.parse(undefined);
      expect({ name, value: shape[name]!.parse(value) }).toEqual({ name, value: fallback });
      if (fallback !== undefined) expect({ name, value }).not.toEqual({ name, value: '' });
    }
  });

  it('is a valid configuration as it stands', async () => {
    const env = Object.fromEntries(await example());
    expect(() => loadConfig(env)).not.toThrow();
  });
});
