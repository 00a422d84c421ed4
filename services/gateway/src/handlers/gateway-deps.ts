/** What the gateway's bus handlers need, built once by service.ts. */
import type { UsageCharger } from '../store/usage-charger.ts';
import type { UsageStore } from '../store/usage-store.ts';

export interface GatewayHandlerDeps {
  usage: UsageStore;
  /** The same charger the pipeline counts requests with, so runs and requests share limits. */
  charger: UsageCharger;
}
