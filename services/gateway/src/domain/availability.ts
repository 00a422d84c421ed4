/**
 * Whether the service answering a route runs now, as the documents show it (docs/adr/0062): from
 * the live directory's set of running services (kit's ServiceDirectory), never from
 * configuration. The gateway's own routes are always available: it is answering.
 */
import type { Availability, RouteDefinition } from '@pag/contracts';

const AVAILABLE: Availability = Object.freeze({ available: true });

export function availabilityOf(route: RouteDefinition, running: ReadonlySet<string>): Availability {
  if (route.service === 'gateway' || running.has(route.service)) return AVAILABLE;
  return { available: false, reason: notRunning(route.service) };
}

/** The reason an endpoint of `service` is unavailable, also the message of its 503. */
export function notRunning(service: string): string {
  return `The ${service} service is not running.`;
}
