/**
 * The kit gives each container the environment deploy/compose.yaml gives it: compose's
 * `environment:` of every service (and of `migrate`), interpolated with one set of secrets, equals
 * what services.ts makes from the same secrets. A variable added to one and not the other fails here.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { parse } from 'yaml';
import { generateDeploymentSecrets } from './secrets.ts';
import { migrateEnvironment, SERVICE_NAMES, serviceEnvironment } from './services.ts';

const COMPOSE = new URL('../../../../deploy/compose.yaml', import.meta.url);
const PUBLIC_URL = 'http://127.0.0.1:8123';

type ComposeFile = { services: Record<string, { environment?: Record<string, string | number> }> };

const secrets = generateDeploymentSecrets();
const variables: Record<string, string> = { ...secrets, PUBLIC_URL };

/** compose's `${NAME}` and `${NAME:-default}` from the env file. */
const interpolate = (value: string | number) =>
  String(value).replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const found = variables[name] ?? fallback;
    if (found === undefined) throw new Error(`compose.yaml uses \${${name}}, which the kit's secrets lack`);
    return found;
  });

async function composeEnvironment(service: string): Promise<Record<string, string>> {
  const compose = parse(await readFile(COMPOSE, 'utf8')) as ComposeFile;
  const environment = compose.services[service]?.environment;
  if (environment === undefined) throw new Error(`compose.yaml has no environment for ${service}`);
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolate(value)]));
}

describe('the kit runs each container with the environment compose.yaml gives it', () => {
  test.each(SERVICE_NAMES)('%s', async (service) => {
    expect(serviceEnvironment(service, { secrets, publicUrl: PUBLIC_URL })).toEqual(
      await composeEnvironment(service),
    );
  });

  test('migrate (and the operator CLI in its image)', async () => {
    expect(migrateEnvironment({ secrets, publicUrl: PUBLIC_URL })).toEqual(
      await composeEnvironment('migrate'),
    );
  });
});

test('make-env.sh writes the secrets the kit makes, and nothing the kit lacks', async () => {
  const script = await readFile(new URL('../../../../deploy/make-env.sh', import.meta.url), 'utf8');
  expect(script).toContain('packages/testkit/src/containers/secrets.ts');
  const compose = await readFile(COMPOSE, 'utf8');
  const used = new Set([...compose.matchAll(/\$\{(\w+)/g)].map((match) => match[1]));
  // Set by the operator, not generated: the version, the address, and the vault's key ring while
  // keys are rotated (empty by default: VAULT_ENCRYPTION_KEY alone).
  for (const name of ['PAG_VERSION', 'PUBLIC_URL', 'GATEWAY_PORT', 'VAULT_KEYS', 'VAULT_ACTIVE_KEY_ID'])
    used.delete(name);
  expect([...used].sort()).toEqual(Object.keys(secrets).sort());
});
