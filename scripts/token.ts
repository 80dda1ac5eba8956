/**
 * `npm run token -- <subject> [--ttl <seconds>]`: prints a fan's bearer token from the
 * development identity provider (docs/CONTRACT.md, Authentication) — the token alone, on stdout — that a
 * service started with the same DATA_DIR accepts. Only when no AUTH_* variable is
 * set and NODE_ENV is not production.
 *
 * `npm run token -- --service <client-id> --scope <scope> [--scope <scope>…]`
 * prints a service's client-credentials token instead (`sub` = `client_id` =
 * the client id, `scope` the scopes joined by spaces); `--scope` may repeat or
 * hold several scopes separated by spaces, and at least one must be a service
 * scope (events:write, admin).
 *
 * Exit codes: 0 printed a token; 1 the development identity provider is off or
 * the configuration is invalid; 2 usage error.
 */
import { signDevToken } from '../src/auth/dev-idp.js';
import { isServiceScope, SERVICE_SCOPES } from '../src/auth/principal.js';
import { loadConfigOrExit } from '../src/config.js';

const USAGE = [
  'Usage: npm run token -- <subject> [--ttl <seconds>]',
  '       npm run token -- --service <client-id> --scope <scope> [--scope <scope>…] [--ttl <seconds>]',
].join('\n');

/** RFC 6749 §3.3 `scope-token`: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

interface Args {
  subject: string;
  ttlSeconds: number | undefined;
  /** Present for a service token. */
  scopes: string[] | undefined;
}

function usage(problem: string): never {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const options: Record<'ttl' | 'service', string | undefined> = {
    ttl: undefined,
    service: undefined,
  };
  const scopes: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') ? splitOption(arg) : [arg, undefined];
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (flag === '--ttl' || flag === '--service' || flag === '--scope') {
      const value = inline ?? argv[i + 1];
      if (value === undefined) usage(`${flag} needs a value`);
      if (inline === undefined) i += 1;
      if (flag === '--scope') scopes.push(...value.split(' ').filter(Boolean));
      else options[flag === '--ttl' ? 'ttl' : 'service'] = value;
    } else if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    } else if (arg.startsWith('-') && arg.length > 1) {
      usage(`Unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  return {
    ...identity(positional, options.service, scopes),
    ttlSeconds: ttlOf(options.ttl),
  };
}

/** `--name=value` as [`--name`, `value`]; `--name` as [`--name`, undefined]. */
function splitOption(arg: string): [string, string | undefined] {
  const at = arg.indexOf('=');
  return at === -1 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
}

/** A fan's subject, or a service's client id and scopes. */
function identity(
  positional: string[],
  service: string | undefined,
  scopes: string[],
): Pick<Args, 'subject' | 'scopes'> {
  if (service === undefined) {
    if (scopes.length > 0) usage('--scope is for service tokens: add --service <client-id>.');
    if (positional.length === 0) usage('A subject is required, e.g. `npm run token -- alice`.');
    if (positional.length > 1) usage(`Expected one subject, got ${positional.length}.`);
    const subject = positional[0] as string;
    if (subject.trim() === '') usage('The subject must not be empty.');
    return { subject, scopes: undefined };
  }
  if (positional.length > 0) usage('Give either a subject or --service <client-id>, not both.');
  if (service.trim() === '') usage('The client id after --service must not be empty.');
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined) usage(`"${bad}" is not a scope (RFC 6749 §3.3).`);
  if (!scopes.some(isServiceScope)) {
    usage(
      `A service token needs a service scope (${SERVICE_SCOPES.join(', ')}), e.g. ` +
        '`--scope events:write`.',
    );
  }
  return { subject: service, scopes: [...new Set(scopes)] };
}

function ttlOf(ttl: string | undefined): number | undefined {
  if (ttl === undefined) return undefined;
  const ttlSeconds = Number(ttl);
  if (!/^\d+$/.test(ttl) || !Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    usage(`--ttl must be a positive whole number of seconds, got "${ttl}".`);
  }
  return ttlSeconds;
}

async function main(): Promise<void> {
  const { subject, ttlSeconds, scopes } = parseArgs(process.argv.slice(2));

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

  const token = await signDevToken(config.dataDir, subject, { ttlSeconds, scopes });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
