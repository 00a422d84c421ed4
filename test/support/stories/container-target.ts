/**
 * The stories' target as containers: testkit's GatewayContainer with every service, its one URL
 * (the TCP front, also PUBLIC_URL), `pag` in the migrations image on its network, its PostgreSQL
 * from the host.
 */
import { GatewayContainer } from '@pag/testkit';
import type { RunningTarget, StoryTarget } from './target.ts';
import { storyTarget } from './target.ts';

/**
 * Start: NATS, PostgreSQL, the migrations and six services on two shared cores; stop: each
 * service drains before its container goes.
 */
const TIMEOUTS = { startMs: 300_000, stopMs: 120_000 };

async function startContainerTarget(): Promise<RunningTarget> {
  const gw = await new GatewayContainer().withServices('all').start();
  return {
    url: gw.baseUrl,
    databaseUrl: gw.databaseUrl,
    pag: async (argv) => (await gw.pag(argv)).trimEnd().split('\n'),
    stop: () => gw.stop(),
  };
}

/** One GatewayContainer (every service), started before the file's stories and removed after. */
export function containerTarget(): StoryTarget {
  return storyTarget(startContainerTarget, TIMEOUTS);
}
