/**
 * `npm run token -- <subject> [--ttl <seconds>]`: prints a bearer token from the
 * development identity provider (docs/CONTRACT.md, Authentication) — the token alone, on stdout — that a
 * service started with the same DATA_DIR accepts. Only when no AUTH_* variable is
 * set and NODE_ENV is not production.
 *
 * Exit codes: 0 printed a token; 1 the development identity provider is off or
 * the configuration is invalid; 2 usage error.
 */
import { signDevToken } from '../src/auth/dev-idp.js';
import { loadConfigOrExit } from '../src/config.js';

const USAGE = 'Usage: npm run token -- <subject> [--ttl <seconds>]';

function usage(problem: string): never {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): { subject: string; ttlSeconds: number | undefined } {
  const positional: string[] = [];
  let ttl: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (arg === '--ttl') {
      ttl = argv[i + 1];
      if (ttl === undefined) usage('--ttl needs a number of seconds');
      i += 1;
    } else if (arg.startsWith('--ttl=')) {
      ttl = arg.slice('--ttl='.length);
    } else if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    } else if (arg.startsWith('-') && arg.length > 1) {
      usage(`Unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length === 0) usage('A subject is required, e.g. `npm run token -- alice`.');
  if (positional.length > 1) usage(`Expected one subject, got ${positional.length}.`);
  const subject = positional[0] as string;
  if (subject.trim() === '') usage('The subject must not be empty.');

  let ttlSeconds: number | undefined;
  if (ttl !== undefined) {
    ttlSeconds = Number(ttl);
    if (!/^\d+$/.test(ttl) || !Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
      usage(`--ttl must be a positive whole number of seconds, got "${ttl}".`);
    }
  }
  return { subject, ttlSeconds };
}

async function main(): Promise<void> {
  const { subject, ttlSeconds } = parseArgs(process.argv.slice(2));

  const config = loadConfigOrExit();

  if (config.auth.kind !== 'dev') {
    process.stderr.write(
      `The development identity provider is off because AUTH_ISSUER is set (key source: ` +
        `${config.auth.kind}, issuer ${config.auth.issuer}); the service only accepts tokens from ` +
        'that identity provider. Unset the AUTH_* variables (outside production) to use ' +
        '`npm run token`.\n',
    );
    process.exit(1);
  }

  const token = await signDevToken(config.dataDir, subject, { ttlSeconds });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
