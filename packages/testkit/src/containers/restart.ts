/**
 * A rolling restart of one service's replicas, as a Deployment's rollout with maxSurge 0 does: one
 * replica at a time, SIGTERM, wait until its process has exited on its own, then a new container
 * in its place, waited for until /readyz answers, before the next one stops. With two replicas or
 * more the service keeps one that answers throughout.
 *
 * Nothing here tells the front or the other services that a replica goes: they learn it as they
 * would in production, from its readiness (503 at once on SIGTERM; the front polls it) and from
 * its listener, which drains for SHUTDOWN_DRAIN_MS and then refuses (docs/adr/0057).
 *
 * A replica that does not exit within the stop timeout is killed by Docker (exit code 137): a
 * shutdown that did not finish its work, so restart() fails naming it, with its last logs.
 */
import type { ContainerRuntimeClient, StartedTestContainer } from 'testcontainers';
import type { Replica } from './replica.ts';

/** What a rolling restart needs of a running GatewayContainer, for one service. */
export interface RestartTarget {
  readonly client: ContainerRuntimeClient;
  readonly replicas: readonly Replica[];
  /** Starts a container for `replica` (its service's image and environment), resolved once ready. */
  startContainer(replica: Replica): Promise<StartedTestContainer>;
}

export interface RestartOptions {
  /** How long a replica has to exit after SIGTERM before Docker kills it; 30 s unless given. */
  stopTimeoutMs?: number;
}

/** How much of a replica's output an unclean exit quotes. */
const LOG_TAIL_CHARS = 4_000;

export async function restartReplicas(
  service: string,
  target: RestartTarget,
  options: RestartOptions = {},
): Promise<void> {
  if (target.replicas.length === 0) throw new Error(`${service} is not running in this GatewayContainer`);
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  for (const replica of target.replicas) {
    const container = replica.container;
    if (container === undefined) throw new Error(`${service} replica ${replica.index} has no container`);
    await stopGracefully(target.client, replica, container, stopTimeoutMs);
    replica.container = await target.startContainer(replica);
    // Its /readyz answered 200 for the start to resolve: what the front's next poll would find.
    replica.ready = true;
  }
}

/** `docker stop -t`, then its exit code checked, then the container removed. */
async function stopGracefully(
  client: ContainerRuntimeClient,
  replica: Replica,
  container: StartedTestContainer,
  stopTimeoutMs: number,
): Promise<void> {
  const stopped = await container.stop({ timeout: stopTimeoutMs, remove: false });
  replica.ready = false;
  replica.container = undefined;
  const handle = client.container.getById(stopped.getId());
  try {
    const { State } = await client.container.inspect(handle);
    if (State.ExitCode !== 0) {
      throw new Error(
        `${replica.service} replica ${replica.index} did not shut down cleanly after SIGTERM ` +
          `(exit code ${State.ExitCode}${State.OOMKilled ? ', out of memory' : ''}); its last output:\n` +
          replica.logs().slice(-LOG_TAIL_CHARS),
      );
    }
  } finally {
    await client.container.remove(handle, { removeVolumes: true });
  }
}
