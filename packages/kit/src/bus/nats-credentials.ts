/**
 * How a service proves itself to nats-server: a user and password, an nkey seed, or a creds file
 * (JWT and seed, from `nsc`), read from the same variables by every service's config. The server
 * gives each service's user publish and subscribe rights on its own subjects only
 * (deploy/nats/nats-server.conf, generated from the contracts' SubjectTable).
 */
import { readFile } from 'node:fs/promises';
import type { Authenticator } from '@nats-io/transport-node';
import {
  credsAuthenticator,
  nkeyAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';
import { z } from 'zod';
import { ConfigError } from '../config/parse-config.ts';

export type NatsCredentials =
  | { kind: 'password'; user: string; password: string }
  | { kind: 'nkey'; seed: string }
  | { kind: 'creds'; file: string };

/** The variables every service's config schema spreads in beside NATS_URL. */
export const natsCredentialsEnv = {
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, 'must be a user nkey seed (SU… from `nk -gen user`)')
    .optional(),
  NATS_CREDS_FILE: z.string().optional(),
};

export interface NatsCredentialsValues {
  NATS_URL?: string | undefined;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_NKEY_SEED?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
}

/** One way of signing in at most, and only with NATS_URL; fails naming the keys at fault. */
export function natsCredentialsFrom(env: NatsCredentialsValues): NatsCredentials | undefined {
  const issues: string[] = [];
  const ways = [
    env.NATS_USER !== undefined || env.NATS_PASSWORD !== undefined ? 'NATS_USER/NATS_PASSWORD' : undefined,
    env.NATS_NKEY_SEED !== undefined ? 'NATS_NKEY_SEED' : undefined,
    env.NATS_CREDS_FILE !== undefined ? 'NATS_CREDS_FILE' : undefined,
  ].filter((way) => way !== undefined);
  if (ways.length > 1)
    issues.push(`${ways.join(', ')}: set one way of signing in to NATS, not ${ways.length}`);
  if ((env.NATS_USER === undefined) !== (env.NATS_PASSWORD === undefined))
    issues.push('NATS_PASSWORD: NATS_USER and NATS_PASSWORD are set together or not at all');
  if (ways.length > 0 && env.NATS_URL === undefined)
    issues.push(`NATS_URL: required with ${ways.join(', ')}`);
  if (issues.length > 0) throw new ConfigError(issues);
  if (env.NATS_USER !== undefined && env.NATS_PASSWORD !== undefined)
    return { kind: 'password', user: env.NATS_USER, password: env.NATS_PASSWORD };
  if (env.NATS_NKEY_SEED !== undefined) return { kind: 'nkey', seed: env.NATS_NKEY_SEED };
  if (env.NATS_CREDS_FILE !== undefined) return { kind: 'creds', file: env.NATS_CREDS_FILE };
  return undefined;
}

/** The nats.js authenticator for `credentials`; a creds file is read here, failing with its path. */
export async function natsAuthenticator(credentials: NatsCredentials): Promise<Authenticator> {
  switch (credentials.kind) {
    case 'password':
      return usernamePasswordAuthenticator(credentials.user, credentials.password);
    case 'nkey':
      return nkeyAuthenticator(new TextEncoder().encode(credentials.seed));
    case 'creds': {
      let text: Buffer;
      try {
        text = await readFile(credentials.file);
      } catch (error) {
        throw new Error(`Cannot read NATS_CREDS_FILE ${credentials.file}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      return credsAuthenticator(new Uint8Array(text));
    }
  }
}
