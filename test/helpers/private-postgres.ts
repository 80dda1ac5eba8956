import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Debian/Ubuntu layout: one directory per installed major version. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * The directories that may hold the server binaries, most likely first:
 * PG_BIN when set (and then only it); `pg_config --bindir` (the client
 * library's version, whose server may not be installed); every installed
 * version under /usr/lib/postgresql, newest first; then the directories on PATH.
 */
function candidateBinDirs(): string[] {
  if (process.env.PG_BIN) return [process.env.PG_BIN];
  const dirs: string[] = [];
  try {
    dirs.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // no pg_config on PATH
  }
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((version) => path.join(DEBIAN_ROOT, version, 'bin')));
  }
  dirs.push(...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean));
  return dirs;
}

/** Where the installed PostgreSQL server binaries are (the first with initdb and pg_ctl), if anywhere. */
export const PG_BIN: string | undefined = candidateBinDirs().find(
  (dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')),
);

/** Why a private PostgreSQL cannot run here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (PG_BIN === undefined) {
    return process.env.PG_BIN
      ? `no initdb and pg_ctl in PG_BIN (${process.env.PG_BIN})`
      : `no PostgreSQL server binaries (initdb, pg_ctl) in pg_config --bindir, ${DEBIAN_ROOT}/*/bin or PATH (set PG_BIN)`;
  }
  return undefined;
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth, local only). */
  url: string;
  port: number;
  /** Kills the server as a crash would (pg_ctl stop -m immediate). */
  crash(): Promise<void>;
  /** Starts it again on the same port and data (crash recovery replays the WAL). */
  start(): Promise<void>;
  /** Stops it cleanly (pg_ctl stop -m fast). */
  stop(): Promise<void>;
  /**
   * Starts it as a standby with no primary and `hot_standby=off`: it stays in
   * recovery and refuses every connection with SQLSTATE 57P03 ("the database
   * system is not accepting connections") until `promote()`.
   */
  startInRecovery(): Promise<void>;
  /** Ends recovery (pg_ctl promote): it accepts connections from then on. */
  promote(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * A throwaway PostgreSQL server of the caller's own: `initdb` into a temp dir,
 * `pg_ctl start` on a free port (not started with `started: false`). Tests that restart or kill a server use this,
 * never the shared cluster on 5432 that other test runs use. initdb refuses
 * to run as root, so as root the commands run as the `postgres` OS user.
 */
export async function startPrivatePostgres(
  options: { started?: boolean } = {},
): Promise<PrivatePostgres> {
  const bin = PG_BIN;
  if (bin === undefined) throw new Error(privatePostgresUnavailable());
  const dir = await mkdtemp(path.join(tmpdir(), 'ups-private-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
      : run(path.join(bin, tool), args);

  const data = path.join(dir, 'data');
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c max_connections=60',
    '-c fsync=off', // a process crash loses nothing; only an OS crash would
    '-c full_page_writes=off',
  ].join(' ');
  const start = async (extra = '', wait = true) => {
    await pg('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-o',
      `${serverOptions}${extra}`,
      wait ? '-w' : '-W',
      '-t',
      '60',
      'start',
    ]);
  };
  try {
    await pg('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    if (options.started ?? true) await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async crash() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start: () => start(),
    async stop() {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    async startInRecovery() {
      await writeFile(path.join(data, 'standby.signal'), '', { mode: 0o644 });
      await start(' -c hot_standby=off', false);
    },
    async promote() {
      await pg('pg_ctl', ['-D', data, '-w', '-t', '60', 'promote']);
    },
    async destroy() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
