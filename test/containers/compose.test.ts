/**
 * The README's "Run with Docker", checked: deploy/compose.yaml with a generated env file (the
 * secrets deploy/make-env.sh writes, from the same generator) starts the whole system with
 * docker-compose (v1 here; v2 reads the same file), the gateway answers /api/v1/ on its published
 * port, and `down -v` leaves no container and no volume of the project.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from '@jest/globals';
import { freePort, generateDeploymentSecrets } from '@pag/testkit';
import { DockerComposeEnvironment, Wait } from 'testcontainers';
import { envFileLines } from '../../packages/testkit/src/containers/secrets.ts';

const docker = async (...args: string[]) => (await promisify(execFile)('docker', args)).stdout.trim();
const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** The images' tag, as deploy/build.sh picks it: PAG_IMAGE_TAG, else the project's version. */
async function imageTag(): Promise<string> {
  const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  return process.env.PAG_IMAGE_TAG || version;
}

test('compose.yaml starts the system and the gateway answers on its published port', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'pag-compose-'));
  const project = `pagcheck${Date.now().toString(36)}`;
  const port = await freePort();
  const envFile = join(directory, '.env');
  await writeFile(
    envFile,
    envFileLines({
      PAG_VERSION: await imageTag(),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      GATEWAY_PORT: String(port),
      ...generateDeploymentSecrets(),
    }),
    { mode: 0o600 },
  );
  // v1 names containers <project>_<service>_1; the standalone executable is compose v1's
  const environment = new DockerComposeEnvironment(DEPLOY, 'compose.yaml')
    .withProjectName(project)
    .withEnvironmentFile(envFile)
    .withClientOptions({ executable: { standalone: true, executablePath: 'docker-compose' } })
    // the image's HEALTHCHECK (/healthz on the ops port): the port itself is not published
    .withWaitStrategy(`${project}_gateway_1`, Wait.forHealthCheck())
    .withStartupTimeout(180_000);
  try {
    const started = await environment.up();
    try {
      const index = await fetch(`http://127.0.0.1:${port}/api/v1/`);
      expect(index.status).toBe(200);
      expect(((await index.json()) as { name: string }).name).toBe('Personal API Gateway');
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`);
      expect(((await metadata.json()) as { issuer: string }).issuer).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await started.down({ removeVolumes: true });
    }
    expect(await docker('ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${project}`)).toBe(
      '',
    );
    expect(
      await docker('volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${project}`),
    ).toBe('');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}, 300_000);
