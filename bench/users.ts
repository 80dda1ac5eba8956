/** The users a bench run sends requests as: an onboarded pool, or tokens of users never seen. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchUser } from './http-load.js';
import type { BenchIssuer } from './issuer.js';
import { outDir, settings } from './settings.js';

/**
 * Onboards BENCH_USERS users `<prefix>-<i>`; returns them and the file with
 * their tokens and handles (for wrk).
 */
export async function userPool(
  issuer: BenchIssuer,
  url: string,
  prefix: string,
): Promise<{ file: string; users: BenchUser[] }> {
  const users = Array.from({ length: settings.users }, (_, i) => ({
    token: issuer.sign(`${prefix}-${i}`),
    handle: `${prefix}_${i}`,
  }));
  const file = tokenFile(prefix, users);
  await onboardPool(url, users);
  return { file, users };
}

export async function onboardPool(
  url: string,
  users: { token: string; handle: string }[],
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const user = users[next++]!;
      const response = await fetch(`${url}/api/user/profile`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Fan',
          handle: user.handle,
          favoriteTeam: 'Arsenal',
          location: 'London',
        }),
      });
      if (!response.ok) throw new Error(`onboarding failed: ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

let freshCounter = 0;
/** A file of tokens for users nobody has seen yet, enough for `seconds` of load. */
export function freshTokens(issuer: BenchIssuer, label: string, seconds: number): string {
  const count = Math.ceil(seconds * settings.freshRate);
  return tokenFile(
    label,
    Array.from({ length: count }, () => {
      const id = freshCounter++;
      return { token: issuer.sign(`fresh-${id}`), handle: `f_${id}` };
    }),
  );
}

/** Writes `users` as bench/load.lua reads them (token TAB handle per line); returns the file. */
export function tokenFile(label: string, users: { token: string; handle: string }[]): string {
  const file = path.join(outDir, `tokens-${label}.tsv`);
  writeFileSync(file, users.map((u) => `${u.token}\t${u.handle}`).join('\n'));
  return file;
}
