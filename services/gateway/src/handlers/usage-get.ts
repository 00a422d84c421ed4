/**
 * gateway.usage.get (queue group `gateway`): the auth service's dashboard asks what some of an
 * owner's agents used: requests today and this month (UTC) and the last request. Answered from
 * the usage counters, only ever from that owner's rows (tenancy: the account id is part of every
 * key read).
 */
import type { UsageReport } from '@pag/contracts';
import { AppError, GatewaySubjects, QueueGroups, UsageQuery } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';
import { usageWindows } from '../domain/usage-windows.ts';
import type { UsageStore } from '../store/usage-store.ts';

export function serveUsageQuery(bus: Bus, store: UsageStore): Promise<Subscription> {
  return bus.handle<unknown, UsageReport>(
    GatewaySubjects.usageGet,
    async (msg) => {
      const query = UsageQuery.safeParse(msg.data);
      if (!query.success) {
        const problems = query.error.issues.map(
          (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
        );
        throw new AppError('INVALID_REQUEST', `Invalid usage query: ${problems.join('; ')}.`);
      }
      const { accountId, clientIds } = query.data;
      return { agents: await store.report(accountId, clientIds, usageWindows(new Date())) };
    },
    { queue: QueueGroups.gateway },
  );
}
