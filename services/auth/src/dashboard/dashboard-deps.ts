/**
 * What every page of the dashboard is built with (dashboard-router.ts hands it to each *-routes.ts).
 */
import type { Bus, Logger } from '@pag/kit';
import type { AuthCore } from '../core.ts';
import type { CookiePolicy } from '../interactions/page-cookie.ts';

export interface DashboardDeps {
  /** The stores (accounts, agents, handshakes, devices), each built once with its events. */
  core: AuthCore;
  /** For the gateway's usage figures (GatewaySubjects.usageGet) and the audit log (audit.records.list). */
  bus: Bus;
  logger: Logger;
  cookies: CookiePolicy;
}
