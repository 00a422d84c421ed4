/**
 * Without a Docker engine or without the images, GatewayContainer fails at once saying which and
 * what to do, never with a testcontainers stack (and so do the container tests that use it: they
 * are never skipped). The engine is taken away in a mount namespace of a child process, where the
 * socket is /dev/null: testcontainers then finds no strategy that works.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from '@jest/globals';
import { GatewayContainer } from '@pag/testkit';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('start() without a reachable engine says so and where to look', async () => {
  const script = `import { GatewayContainer } from '@pag/testkit';
await new GatewayContainer().start().then(
  () => console.log('started'),
  (error) => console.log(error.message),
);`;
  const env = { ...process.env };
  delete env.DOCKER_HOST;
  const { stdout } = await promisify(execFile)(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      'mount --bind /dev/null /var/run/docker.sock && exec node_modules/node/bin/node --input-type=module -e "$0"',
      script,
    ],
    { cwd: ROOT, env },
  );
  expect(stdout.trim()).toBe(
    'Docker is not reachable at unix:///var/run/docker.sock: start the engine (e.g. `nohup dockerd >/tmp/dockerd.log 2>&1 &`) ' +
      'or set DOCKER_HOST; see packages/testkit/README.md',
  );
}, 30_000);

test('start() without the images names each one missing and how to build it', async () => {
  await expect(new GatewayContainer().withImageTag('no-such-tag').withServices([]).start()).rejects.toThrow(
    'missing images pag/gateway:no-such-tag, pag/auth:no-such-tag, pag/migrate:no-such-tag: build them with `pnpm images`',
  );
});
