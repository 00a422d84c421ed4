/**
 * What the kit asks the Docker engine directly: whether it answers (with an error that says what to
 * do, not a testcontainers stack), whether the images exist (they are built locally, never pulled),
 * and one-shot containers whose stdout, stderr and exit code all matter (the migrations and the
 * operator CLI). testcontainers' one-shot wait removes a failed container before its output can be
 * read (wait-for-container.js), so these run through its dockerode client instead.
 */
import type { ContainerRuntimeClient } from 'testcontainers';
import { getContainerRuntimeClient } from 'testcontainers';

/** Labels every container of one GatewayContainer: `docker ps --filter label=pag.testkit.instance=<id>`. */
export const INSTANCE_LABEL = 'pag.testkit.instance';

export async function dockerClient(): Promise<ContainerRuntimeClient> {
  try {
    return await getContainerRuntimeClient();
  } catch (cause) {
    const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    throw new Error(
      `Docker is not reachable at ${where}: start the engine (e.g. \`nohup dockerd >/tmp/dockerd.log 2>&1 &\`) ` +
        'or set DOCKER_HOST; see packages/testkit/README.md',
      { cause },
    );
  }
}

/** Fails naming every image that is missing and how to build it (they are never pulled). */
export async function requireImages(
  client: ContainerRuntimeClient,
  images: readonly string[],
): Promise<void> {
  const missing: string[] = [];
  for (const image of images) {
    const found = await client.container.dockerode
      .getImage(image)
      .inspect()
      .then(
        () => true,
        () => false,
      );
    if (!found) missing.push(image);
  }
  if (missing.length > 0)
    throw new Error(
      `missing image${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: build them with \`pnpm images\` ` +
        '(PAG_IMAGE_TAG=<tag> for another tag); see packages/testkit/README.md',
    );
}

export interface OneShot {
  image: string;
  command?: string[];
  env: Readonly<Record<string, string>>;
  network: string;
  labels: Readonly<Record<string, string>>;
}

export interface OneShotResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a container to its end as compose's `run --rm` would (init, read-only root, /tmp a tmpfs). */
export async function runOneShot(client: ContainerRuntimeClient, run: OneShot): Promise<OneShotResult> {
  const container = await client.container.dockerode.createContainer({
    Image: run.image,
    ...(run.command ? { Cmd: run.command } : {}),
    Env: Object.entries(run.env).map(([name, value]) => `${name}=${value}`),
    Labels: { ...run.labels },
    HostConfig: { NetworkMode: run.network, Init: true, ReadonlyRootfs: true, Tmpfs: { '/tmp': '' } },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const [stdout, stderr] = await Promise.all(
      (['stdout', 'stderr'] as const).map(async (stream) =>
        demultiplex(await container.logs({ [stream]: true, follow: false })),
      ),
    );
    return { exitCode: StatusCode, stdout: stdout ?? '', stderr: stderr ?? '' };
  } finally {
    await container.remove({ force: true });
  }
}

/**
 * The text of a log read without a TTY: Docker frames each chunk with an 8-byte header (stream
 * type, three zero bytes, the payload's length as a big-endian uint32).
 */
function demultiplex(framed: Buffer): string {
  const parts: Buffer[] = [];
  for (let offset = 0; offset + 8 <= framed.length; ) {
    const length = framed.readUInt32BE(offset + 4);
    parts.push(framed.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  return Buffer.concat(parts).toString('utf8');
}
